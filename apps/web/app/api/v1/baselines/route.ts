import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseQuery } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The workspace's baselines, newest first; ?target=NAME&workload=NAME picks one pair's. */
export const GET = apiRoute(async ({ request, scope }) => {
  const q = parseQuery(API_CONTRACTS["GET /api/v1/baselines"].query, request);
  const found = await scope.runs.baselines(q);
  return NextResponse.json(
    found.map((b) => ({ ...b, createdAt: b.createdAt.toISOString() })),
    { headers: { "cache-control": "no-store" } },
  );
});
