import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Deletes a script secret (by id or name); a run that names it afterwards is refused. 404 for an unknown one. */
export const DELETE = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const r = await scope.scriptSecrets.remove(params.id);
  await audit(scope, request, { action: "secret.delete", subjectKind: "secret", subjectId: r.id, detail: { name: r.name } });
  return NextResponse.json({ ...r, deleted: true });
});
