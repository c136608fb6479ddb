import { publishStudyUpdate } from "@opsbench/jobs";
import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";
import { getStudyPublisher } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Aborts a study: it and its runs not yet started become ABORTED at once; the
 * worker sees it within a second and stops the run under way (which is torn down).
 * Aborting a finished study changes nothing: `aborted: false` with its status.
 */
export const POST = apiRoute<{ id: string }>(async ({ scope, params }) => {
  const r = await scope.studies.abort(params.id);
  if (r.aborted) await publishStudyUpdate(getStudyPublisher(), { studyId: params.id, kind: "status", status: r.status }).catch(() => {});
  return NextResponse.json({ id: params.id, ...r });
});
