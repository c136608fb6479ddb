import { NextResponse } from "next/server";
import { toSpecItem } from "@/lib/api/dto";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { asksForPage } from "@opsbench/api";
import { apiRoute, parseBody, parseQuery } from "@/lib/api/errors";
import { listAnswer } from "@/lib/api/list-answer";
import { audit } from "@/lib/server/audit";
import { assertRateSourceInWorkspace, assertWorkloadFits } from "@/lib/server/script-check";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The workspace's workloads by name: every one, or a page with ?cursor=&limit= (list-answer.ts). */
export const GET = apiRoute(async ({ request, scope }) => {
  const query = parseQuery(API_CONTRACTS["GET /api/v1/workloads"].query, request);
  const page = asksForPage(request) ? await scope.workloads.page(query) : { items: await scope.workloads.list(), nextCursor: null };
  return listAnswer(request, page, toSpecItem);
});

/**
 * Creates a workload, or replaces the spec of the workload with that name. Its k6
 * script is checked by a worker (k6 inspect) first: one that does not parse is
 * refused with k6's message at spec.source, one over a workspace limit with a
 * message naming the limit, and nothing is saved.
 */
export const POST = apiRoute(async ({ request, scope }) => {
  const input = await parseBody(API_CONTRACTS["POST /api/v1/workloads"].body, request);
  await assertRateSourceInWorkspace(scope, input.spec);
  await assertWorkloadFits(input.spec, await scope.limits.get(), "spec", scope.workspaceId);
  const workload = await scope.workloads.put(input);
  await audit(scope, request, {
    action: "workload.create",
    subjectKind: "workload",
    subjectId: workload.id,
    detail: { name: workload.name },
  });
  return NextResponse.json(toSpecItem(workload), { status: 201 });
});
