import { ceilingBreaches } from "@opsbench/core";
import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { ApiError, apiRoute, parseBody } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** What binds the workspace: each limit the lower of its own and the instance's ceiling. */
export const GET = apiRoute(async ({ scope }) => NextResponse.json(await scope.limits.get()));

/**
 * Sets some of the workspace's limits (the others keep their value); answers all of them as they bind. A limit
 * above the instance's ceiling is refused (422 naming the limit and the ceiling), and nothing is changed.
 */
export const PUT = apiRoute(async ({ request, scope }) => {
  const changes = await parseBody(API_CONTRACTS["PUT /api/v1/limits"].body, request);
  const breaches = ceilingBreaches(changes, await scope.limits.ceilings());
  if (breaches.length > 0)
    throw new ApiError(
      "invalid_input",
      breaches.map((b) => `${b.limit}: ${b.message}`).join("; "),
      breaches.map((b) => ({ path: b.limit, message: b.message })),
    );
  await scope.limits.set(changes);
  await audit(scope, request, { action: "limits.set", subjectKind: "limits", subjectId: scope.workspaceId, detail: changes });
  return NextResponse.json(await scope.limits.get());
});
