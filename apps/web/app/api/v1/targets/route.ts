import { NextResponse } from "next/server";
import { toSpecItem } from "@/lib/api/dto";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ scope }) => NextResponse.json((await scope.targets.list()).map(toSpecItem)));

/** Creates a target, or replaces the spec of the target with that name. */
export const POST = apiRoute(async ({ request, scope }) => {
  const input = await parseBody(API_CONTRACTS["POST /api/v1/targets"].body, request);
  return NextResponse.json(toSpecItem(await scope.targets.put(input)), { status: 201 });
});
