import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseQuery } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The workspace's series (docs/trends.md), newest last run first: always a page, { items, nextCursor }. */
export const GET = apiRoute(async ({ request, scope }) => {
  const query = parseQuery(API_CONTRACTS["GET /api/v1/series"].query, request);
  return NextResponse.json(await scope.series.page(query));
});
