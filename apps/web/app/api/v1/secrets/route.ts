import { SecretKeyError } from "@opsbench/db";
import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { ApiError, apiRoute, parseBody } from "@/lib/api/errors";
import { env } from "@/lib/env";
import { audit } from "@/lib/server/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const noStore = { "cache-control": "no-store" };

/** The workspace's script secrets: names and dates, never a value. */
export const GET = apiRoute(async ({ scope }) => NextResponse.json(await scope.scriptSecrets.list(), { headers: noStore }));

/** Saves a script secret (or replaces the value of the one with that name); the value is sealed and never answered back. */
export const POST = apiRoute(async ({ request, scope }) => {
  const input = await parseBody(API_CONTRACTS["POST /api/v1/secrets"].body, request);
  try {
    const saved = await scope.scriptSecrets.put(input.name, input.value, env.OPSBENCH_SECRET_KEY);
    // The audit log names the secret, never its value.
    await audit(scope, request, {
      action: "secret.save",
      subjectKind: "secret",
      subjectId: saved.id,
      detail: { name: saved.name, replaced: saved.replaced },
    });
    return NextResponse.json(saved, { status: 201, headers: noStore });
  } catch (err) {
    if (err instanceof SecretKeyError) throw new ApiError("internal", `secrets cannot be saved on this server: ${err.message}`);
    throw err;
  }
});
