import { smtpServerUrl } from "@opsbench/core";
import { SecretKeyError } from "@opsbench/db";
import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { ApiError, apiRoute, parseBody } from "@/lib/api/errors";
import { actorOf, audit } from "@/lib/server/audit";
import { refuseOutboundAtSave } from "@/lib/server/endpoint-policy";
import { env } from "@/lib/env";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const noStore = { "cache-control": "no-store" };

/** The workspace's SMTP settings (never the password), or null when it sends no e-mail. */
export const GET = apiRoute(async ({ scope }) => NextResponse.json(await scope.notifications.smtp(), { headers: noStore }));

/** Sets the workspace's SMTP server, recipients and events. The host passes the load targets' egress rule (422 naming why). */
export const PUT = apiRoute(async ({ request, scope }) => {
  const input = await parseBody(API_CONTRACTS["PUT /api/v1/notifications/smtp"].body, request);
  refuseOutboundAtSave("SMTP server", smtpServerUrl(input.host, input.port), "host", request);
  if (input.password !== undefined && !input.username)
    throw new ApiError("invalid_input", "password: a password needs a username", [
      { path: "username", message: "required with a password" },
    ]);
  let saved: Awaited<ReturnType<typeof scope.notifications.saveSmtp>>;
  try {
    saved = await scope.notifications.saveSmtp(input, await actorOf(request), env.OPSBENCH_SECRET_KEY);
  } catch (err) {
    if (err instanceof SecretKeyError) throw new ApiError("internal", `an SMTP password cannot be saved on this server: ${err.message}`);
    throw err;
  }
  await audit(scope, request, {
    action: "smtp.save",
    subjectKind: "smtp",
    subjectId: scope.workspaceId,
    detail: { host: saved.host, port: saved.port, to: saved.to, events: saved.events, passwordChanged: input.password !== undefined },
  });
  return NextResponse.json(saved, { headers: noStore });
});

/** Forgets the SMTP settings: the workspace sends no e-mail. */
export const DELETE = apiRoute(async ({ request, scope }) => {
  const deleted = await scope.notifications.removeSmtp();
  if (deleted) await audit(scope, request, { action: "smtp.delete", subjectKind: "smtp", subjectId: scope.workspaceId });
  return NextResponse.json({ deleted });
});
