import { NextResponse } from "next/server";
import { toSpecItem } from "@/lib/api/dto";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";
import { assertScriptParses } from "@/lib/server/script-check";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ scope }) => NextResponse.json((await scope.workloads.list()).map(toSpecItem)));

/**
 * Creates a workload, or replaces the spec of the workload with that name. A
 * user's own k6 script is checked by a worker (k6 inspect) first: one that does
 * not parse is refused with k6's message at spec.source, and nothing is saved.
 */
export const POST = apiRoute(async ({ request, scope }) => {
  const input = await parseBody(API_CONTRACTS["POST /api/v1/workloads"].body, request);
  if (input.spec.kind === "script") await assertScriptParses(input.spec.source);
  return NextResponse.json(toSpecItem(await scope.workloads.put(input)), { status: 201 });
});
