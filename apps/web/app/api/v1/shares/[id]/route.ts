import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Revokes a link: from now on it answers 404. 404 for an unknown (or already revoked) link. */
export const DELETE = apiRoute<{ id: string }>(async ({ scope, params }) => {
  await scope.shares.revoke(params.id);
  return NextResponse.json({ id: params.id, revoked: true });
});
