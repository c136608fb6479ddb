// GET /api/health: Postgres, Redis, worker heartbeats and queue depth, for
// load balancers, container healthchecks and people. 503 when Postgres or Redis
// is unreachable. No authentication, and nothing secret in the answer.
import { NextResponse } from "next/server";
import { env } from "@/lib/env";
import { checkHealth } from "@/lib/health";
import { getDb, getRunQueue, getStudyQueue } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET() {
  const report = await checkHealth({ db: getDb(), redisUrl: env.REDIS_URL, runQueue: getRunQueue(), studyQueue: getStudyQueue() });
  return NextResponse.json(report, { status: report.status === "down" ? 503 : 200, headers: { "cache-control": "no-store" } });
}
