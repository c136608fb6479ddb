import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseQuery } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The results export log, newest first: each run sent to each exporter, each attempt's code and error. ?exporter=, ?limit=. */
export const GET = apiRoute(async ({ request, scope }) => {
  const query = parseQuery(API_CONTRACTS["GET /api/v1/exporters/exports"].query, request);
  return NextResponse.json(await scope.exporters.exports(query), { headers: { "cache-control": "no-store" } });
});
