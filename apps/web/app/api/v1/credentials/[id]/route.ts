import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Deletes a credential; targets naming it then fail before anything is deployed. 404 for an unknown one. */
export const DELETE = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const { name } = await scope.credentials.remove(params.id);
  await audit(scope, request, { action: "credential.delete", subjectKind: "credential", subjectId: params.id, detail: { name } });
  return NextResponse.json({ id: params.id, deleted: true });
});
