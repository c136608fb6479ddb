import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * The proof of ownership the target's host needs before the workspace may load it (when it is not on the admin's
 * allowlist and opsbench does not create it for the run): the token, where to serve it, the TXT record to publish.
 */
export const GET = apiRoute<{ id: string }>(async ({ scope, params }) =>
  NextResponse.json(await scope.targetVerification(params.id), { headers: { "cache-control": "no-store" } }),
);
