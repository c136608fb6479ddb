import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Deletes a credential; targets naming it then fail before anything is deployed. 404 for an unknown one. */
export const DELETE = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const { name } = await scope.credentials.remove(params.id);
  await audit(scope, request, { action: "credential.delete", subjectKind: "credential", subjectId: params.id, detail: { name } });
  return NextResponse.json({ id: params.id, deleted: true });
});

/** An owner opens a credential to editors, or closes it (editorsMayDeploy); the secret is not touched. 404 for an unknown one. */
export const PUT = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const input = await parseBody(API_CONTRACTS["PUT /api/v1/credentials/{id}"].body, request);
  const updated = await scope.credentials.setEditorsMayDeploy(params.id, input.editorsMayDeploy);
  await audit(scope, request, {
    action: "credential.settings",
    subjectKind: "credential",
    subjectId: params.id,
    detail: { name: updated.name, editorsMayDeploy: updated.editorsMayDeploy },
  });
  return NextResponse.json(updated, { headers: { "cache-control": "no-store" } });
});
