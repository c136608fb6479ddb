import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ scope }) => NextResponse.json(await scope.limits.get()));

/** Sets some of the workspace's limits (the others keep their value); answers all of them. */
export const PUT = apiRoute(async ({ request, scope }) => {
  const changes = await parseBody(API_CONTRACTS["PUT /api/v1/limits"].body, request);
  const limits = await scope.limits.set(changes);
  await audit(scope, request, { action: "limits.set", subjectKind: "limits", subjectId: scope.workspaceId, detail: changes });
  return NextResponse.json(limits);
});
