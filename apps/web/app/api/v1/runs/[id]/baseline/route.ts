import { BaselineRefused } from "@opsbench/db";
import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { ApiError, apiRoute, parseQuery } from "@/lib/api/errors";
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

/**
 * The last N succeeded runs of the run's series ending at it (`opsbench compare --baseline-runs N`): its target x
 * workload, or for an import the imports of its name; `exclude` leaves the candidate out.
 */
export const GET = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const q = parseQuery(API_CONTRACTS["GET /api/v1/runs/{id}/baseline"].query, request);
  try {
    return NextResponse.json(await scope.runs.baselineRuns(params.id, q.runs, q.exclude), { headers: { "cache-control": "no-store" } });
  } catch (err) {
    if (err instanceof BaselineRefused) throw new ApiError("invalid_input", err.message, [{ path: "id", message: err.message }]);
    throw err;
  }
});
