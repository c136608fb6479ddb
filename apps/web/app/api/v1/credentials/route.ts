import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";
import { saveCheckedCredential } from "@/lib/server/credential-save";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const noStore = { "cache-control": "no-store" };

/** The workspace's credentials: names, kinds and dates, never a secret. */
export const GET = apiRoute(async ({ scope }) => NextResponse.json(await scope.credentials.list(), { headers: noStore }));

/**
 * Saves a credential (or replaces the one with that name) after a worker has checked it against its platform;
 * a credential the platform refuses is not saved, and the 422 names what is wrong or missing.
 */
export const POST = apiRoute(async ({ request, scope }) => {
  const input = await parseBody(API_CONTRACTS["POST /api/v1/credentials"].body, request);
  const saved = await saveCheckedCredential(scope, input);
  await audit(scope, request, {
    action: "credential.save",
    subjectKind: "credential",
    subjectId: saved.id,
    detail: { name: saved.name, kind: saved.kind },
  });
  return NextResponse.json(saved, { status: 201, headers: noStore });
});
