import { NextResponse } from "next/server";
import { notify } from "@opsbench/jobs";
import { apiRoute } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";
import { getDb, getNotificationQueue } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Queues a "test" event to this endpoint alone (even a disabled one); its outcome appears in the delivery log. 404 for an unknown one. */
export const POST = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const endpoint = await scope.notifications.getWebhook(params.id);
  const { deliveryIds } = await notify(getDb(), getNotificationQueue(), {
    workspaceId: scope.workspaceId,
    event: "test",
    text: `Test event for ${endpoint.url}: if you can read this, opsbench reaches your endpoint`,
    path: "/settings#notifications",
    only: { endpointId: endpoint.id },
    detail: { endpointId: endpoint.id },
  });
  await audit(scope, request, { action: "webhook.test", subjectKind: "webhook", subjectId: endpoint.id, detail: { url: endpoint.url } });
  return NextResponse.json({ deliveryId: deliveryIds[0]!, status: "pending" as const }, { status: 201 });
});
