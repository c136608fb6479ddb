import { notifyGateTripped } from "@opsbench/jobs";
import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";
import { getDb, getNotificationQueue } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * `opsbench compare` (and `run --fail-on`) judge gates on the CLI's side; when one fails, the CLI reports it here and
 * the workspace is told ("gate.tripped": its webhooks and e-mail). 404 for a run of another workspace.
 */
export const POST = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const input = await parseBody(API_CONTRACTS["POST /api/v1/runs/{id}/gate-tripped"].body, request);
  await scope.runs.assertExists(params.id);
  await scope.runs.assertExists(input.baselineRunId);
  const told = await notifyGateTripped(getDb(), getNotificationQueue(), params.id, input);
  await audit(scope, request, {
    action: "run.gate-tripped",
    subjectKind: "run",
    subjectId: params.id,
    detail: { baselineRunId: input.baselineRunId, rules: input.rules.map((r) => r.rule) },
  });
  return NextResponse.json({ eventId: told?.eventId ?? null, deliveries: told?.deliveryIds.length ?? 0 }, { status: 201 });
});
