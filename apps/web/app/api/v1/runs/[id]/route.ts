import { deleteRun } from "@opsbench/jobs";
import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";
import { getRunQueue } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The run as its page shows it (RunView); 404 for an unknown or malformed id. */
export const GET = apiRoute<{ id: string }>(async ({ scope, params }) =>
  NextResponse.json(await scope.runs.view(params.id), { headers: { "cache-control": "no-store" } }),
);

/** Deletes the run (aborted first when queued or under way) with its series, steps, events and share links. */
export const DELETE = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const r = await deleteRun(scope, getRunQueue(), params.id);
  await audit(scope, request, { action: "run.delete", subjectKind: "run", subjectId: params.id });
  return NextResponse.json({ id: params.id, deleted: true, ...r });
});
