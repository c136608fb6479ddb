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

/** The workspace's results exporters (never a token or password). */
export const GET = apiRoute(async ({ scope }) => NextResponse.json(await scope.exporters.list(), { headers: noStore }));

/**
 * Adds a results exporter (docs/exports.md). Its URL passes the webhooks' egress rule (a private, loopback or metadata
 * address, or a port of opsbench's own services, is refused: 422 naming why); the credential is sealed.
 */
export const POST = apiRoute(async ({ request, scope }) => {
  const input = await parseBody(API_CONTRACTS["POST /api/v1/exporters"].body, request);
  refuseOutboundAtSave("results export", input.url, "url", request);
  let created: Awaited<ReturnType<typeof scope.exporters.create>>;
  try {
    created = await scope.exporters.create({ ...input, createdBy: await actorOf(request) }, env.OPSBENCH_SECRET_KEY);
  } catch (err) {
    if (err instanceof SecretKeyError)
      throw new ApiError("internal", `exporters with a credential cannot be saved on this server: ${err.message}`);
    throw err;
  }
  await audit(scope, request, {
    action: "exporter.create",
    subjectKind: "exporter",
    subjectId: created.id,
    detail: { name: created.name, kind: created.kind, url: created.url, auth: created.auth },
  });
  return NextResponse.json(created, { status: 201, headers: noStore });
});
