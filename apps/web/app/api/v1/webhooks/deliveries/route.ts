import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseQuery } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The delivery log (webhooks and e-mail), newest first: each attempt's code and error. ?endpoint= one endpoint's, ?limit=. */
export const GET = apiRoute(async ({ request, scope }) => {
  const query = parseQuery(API_CONTRACTS["GET /api/v1/webhooks/deliveries"].query, request);
  return NextResponse.json(await scope.notifications.deliveries(query), { headers: { "cache-control": "no-store" } });
});
