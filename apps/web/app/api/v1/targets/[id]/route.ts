import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Deletes a target by id or name; 409 while runs use it (their specs are copies, but the runs name it). */
export const DELETE = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const r = await scope.deletion.deleteTarget(params.id);
  await audit(scope, request, { action: "target.delete", subjectKind: "target", subjectId: r.id, detail: { name: r.name } });
  return NextResponse.json({ ...r, deleted: true });
});
