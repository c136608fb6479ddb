import { publishRunUpdate } from "@opsbench/jobs";
import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";
import { getStudyPublisher } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Aborts a run: a queued one becomes ABORTED at once; the worker running one under way
 * sees the request within a second, stops its k6 and tears the target down (ABORTED).
 * Aborting a final run changes nothing: `aborted: false` with its status.
 */
export const POST = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const r = await scope.runs.abort(params.id);
  if (r.aborted) {
    await audit(scope, request, { action: "run.abort", subjectKind: "run", subjectId: params.id });
    await publishRunUpdate(getStudyPublisher(), { runId: params.id, kind: "status", status: r.status }).catch(() => {});
  }
  return NextResponse.json({ id: params.id, ...r });
});
