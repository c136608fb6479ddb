import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Sets the run's provenance (commit, branch, pull request, build URL, labels), replacing what it had. */
export const PUT = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const input = await parseBody(API_CONTRACTS["PUT /api/v1/runs/{id}/provenance"].body, request);
  const provenance = await scope.runs.setProvenance(params.id, input);
  await audit(scope, request, { action: "run.provenance", subjectKind: "run", subjectId: params.id, detail: { ...provenance } });
  return NextResponse.json({ id: params.id, provenance });
});
