import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseQuery } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * The summary of any window of a run, merged from its per-second histograms:
 * GET /api/v1/runs/:id/summary?from=840&to=960 (seconds after the load started).
 */
export const GET = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const q = parseQuery(API_CONTRACTS["GET /api/v1/runs/{id}/summary"].query, request);
  return NextResponse.json(await scope.runs.windowSummary(params.id, q.from, q.to), { headers: { "cache-control": "no-store" } });
});
