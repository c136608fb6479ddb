import { NextResponse } from "next/server";
import { SecretKeyError } from "@opsbench/db";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { ApiError, apiRoute, parseBody } from "@/lib/api/errors";
import { actorOf, audit } from "@/lib/server/audit";
import { refuseOutboundAtSave } from "@/lib/server/endpoint-policy";
import { env } from "@/lib/env";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const noStore = { "cache-control": "no-store" };

/** The workspace's webhook endpoints (never their secrets). */
export const GET = apiRoute(async ({ scope }) => NextResponse.json(await scope.notifications.listWebhooks(), { headers: noStore }));

/**
 * Adds a webhook endpoint. Its URL passes the load targets' egress rule (a private, loopback or metadata address, or a
 * port of opsbench's own services, is refused: 422 naming why); the answer carries the signing secret, once.
 */
export const POST = apiRoute(async ({ request, scope }) => {
  const input = await parseBody(API_CONTRACTS["POST /api/v1/webhooks"].body, request);
  refuseOutboundAtSave("webhook", input.url, "url", request);
  let created: Awaited<ReturnType<typeof scope.notifications.createWebhook>>;
  try {
    created = await scope.notifications.createWebhook({ ...input, createdBy: await actorOf(request) }, env.OPSBENCH_SECRET_KEY);
  } catch (err) {
    if (err instanceof SecretKeyError) throw new ApiError("internal", `webhooks cannot be saved on this server: ${err.message}`);
    throw err;
  }
  await audit(scope, request, {
    action: "webhook.create",
    subjectKind: "webhook",
    subjectId: created.id,
    detail: { url: created.url, events: created.events, format: created.format },
  });
  return NextResponse.json(created, { status: 201, headers: noStore });
});
