import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Revokes a link: from now on it answers 404. 404 for an unknown (or already revoked) link. */
export const DELETE = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  await scope.shares.revoke(params.id);
  await audit(scope, request, { action: "share.revoke", subjectKind: "share", subjectId: params.id });
  return NextResponse.json({ id: params.id, revoked: true });
});
