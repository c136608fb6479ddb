import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseQuery } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The workspace's audit log, newest first (?limit, 200 by default). */
export const GET = apiRoute(async ({ request, scope }) => {
  const { limit } = parseQuery(API_CONTRACTS["GET /api/v1/audit"].query, request);
  const events = await scope.audit.list(limit);
  return NextResponse.json(events.map((e) => ({ ...e, at: e.at.toISOString() })));
});
