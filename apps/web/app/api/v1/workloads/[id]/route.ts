import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Deletes a workload by id or name; 409 while runs use it (their specs are copies, but the runs name it). */
export const DELETE = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const r = await scope.deletion.deleteWorkload(params.id);
  await audit(scope, request, { action: "workload.delete", subjectKind: "workload", subjectId: r.id, detail: { name: r.name } });
  return NextResponse.json({ ...r, deleted: true });
});

/**
 * Renames a workload (by id or name): its runs, baselines, baseline history and target x workload series follow
 * it (they hang off its id). 409 when the new name is taken, 404 for an unknown one.
 */
export const PUT = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const input = await parseBody(API_CONTRACTS["PUT /api/v1/workloads/{id}"].body, request);
  const r = await scope.workloads.rename(params.id, input.name);
  await audit(scope, request, {
    action: "workload.rename",
    subjectKind: "workload",
    subjectId: r.id,
    detail: { from: r.from, name: r.name },
  });
  return NextResponse.json(r);
});
