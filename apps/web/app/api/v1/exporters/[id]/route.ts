import { SecretKeyError } from "@opsbench/db";
import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { ApiError, apiRoute, parseBody } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";
import { refuseOutboundAtSave } from "@/lib/server/endpoint-policy";
import { env } from "@/lib/env";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Changes an exporter (its URL checked as at creation); a secret left out stays. 404 for an unknown one. */
export const PUT = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const input = await parseBody(API_CONTRACTS["PUT /api/v1/exporters/{id}"].body, request);
  if (input.url !== undefined) refuseOutboundAtSave("results export", input.url, "url", request);
  // A credential is needed for bearer or basic auth: given now, or stored before.
  const current = await scope.exporters.get(params.id);
  const auth = input.auth ?? current.auth;
  if (auth !== "none" && !input.secret && !current.hasSecret) {
    const message = `${auth} auth needs a secret (the ${auth === "bearer" ? "token" : "password"})`;
    throw new ApiError("invalid_input", `secret: ${message}`, [{ path: "secret", message }]);
  }
  let updated: Awaited<ReturnType<typeof scope.exporters.update>>;
  try {
    updated = await scope.exporters.update(params.id, input, env.OPSBENCH_SECRET_KEY);
  } catch (err) {
    if (err instanceof SecretKeyError)
      throw new ApiError("internal", `exporters with a credential cannot be saved on this server: ${err.message}`);
    throw err;
  }
  // The audit log names what changed, never the secret itself.
  const { secret, ...changed } = input;
  await audit(scope, request, {
    action: "exporter.update",
    subjectKind: "exporter",
    subjectId: updated.id,
    detail: { ...changed, ...(secret !== undefined ? { secretChanged: true } : {}) },
  });
  return NextResponse.json(updated, { headers: { "cache-control": "no-store" } });
});

/** Deletes an exporter and its log. 404 for an unknown one. */
export const DELETE = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const removed = await scope.exporters.remove(params.id);
  await audit(scope, request, {
    action: "exporter.delete",
    subjectKind: "exporter",
    subjectId: removed.id,
    detail: { name: removed.name, url: removed.url },
  });
  return NextResponse.json({ id: removed.id, deleted: true });
});
