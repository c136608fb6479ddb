import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";
import { refuseOutboundAtSave } from "@/lib/server/endpoint-policy";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Changes an endpoint's URL (checked as at creation), events, format or whether it is enabled; the secret stays. 404 for an unknown one. */
export const PUT = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const input = await parseBody(API_CONTRACTS["PUT /api/v1/webhooks/{id}"].body, request);
  if (input.url !== undefined) refuseOutboundAtSave("webhook", input.url, "url", request);
  const updated = await scope.notifications.updateWebhook(params.id, input);
  await audit(scope, request, { action: "webhook.update", subjectKind: "webhook", subjectId: updated.id, detail: input });
  return NextResponse.json(updated, { headers: { "cache-control": "no-store" } });
});

/** Deletes an endpoint and its delivery log. 404 for an unknown one. */
export const DELETE = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const removed = await scope.notifications.removeWebhook(params.id);
  await audit(scope, request, { action: "webhook.delete", subjectKind: "webhook", subjectId: removed.id, detail: { url: removed.url } });
  return NextResponse.json({ id: removed.id, deleted: true });
});
