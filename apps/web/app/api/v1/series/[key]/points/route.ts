import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseInput, parseQuery } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** A series' finished runs as trend points with their intervals (docs/trends.md); 404 for a series with no run. */
export const GET = apiRoute<{ key: string }>(async ({ request, scope, params }) => {
  const contract = API_CONTRACTS["GET /api/v1/series/{key}/points"];
  const { key } = parseInput(contract.params, params);
  const query = parseQuery(contract.query, request);
  return NextResponse.json(await scope.series.points(key, query));
});
