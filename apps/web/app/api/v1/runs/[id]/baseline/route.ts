import { BaselineRefused } from "@opsbench/db";
import { NextResponse } from "next/server";
import { ApiError, apiRoute } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";
import { requesterOf } from "@/lib/server/credential-role";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Marks the run as the workspace's baseline for its target and workload (`opsbench compare --baseline latest-baseline`). */
export const POST = apiRoute<{ id: string }>(async ({ request, scope, params, member }) => {
  try {
    const b = await scope.runs.setBaseline(params.id, requesterOf(member));
    await audit(scope, request, {
      action: "run.baseline",
      subjectKind: "run",
      subjectId: params.id,
      detail: { target: b.target, workload: b.workload },
    });
    return NextResponse.json({ ...b, createdAt: b.createdAt.toISOString() });
  } catch (err) {
    if (err instanceof BaselineRefused) throw new ApiError("invalid_input", err.message, [{ path: "id", message: err.message }]);
    throw err;
  }
});
