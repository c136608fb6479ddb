import { deleteStudy } from "@opsbench/jobs";
import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";
import { getStudyQueue } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The study as its page shows it (StudyView: cells, runs, spread, merged results, progress, ETA); 404 for an unknown id. */
export const GET = apiRoute<{ id: string }>(async ({ scope, params }) =>
  NextResponse.json(await scope.studies.view(params.id), { headers: { "cache-control": "no-store" } }),
);

/** Deletes the study (aborted first when queued or under way) with its runs and share links. */
export const DELETE = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const r = await deleteStudy(scope, getStudyQueue(), params.id);
  await audit(scope, request, { action: "study.delete", subjectKind: "study", subjectId: params.id });
  return NextResponse.json({ id: params.id, deleted: true, ...r });
});
