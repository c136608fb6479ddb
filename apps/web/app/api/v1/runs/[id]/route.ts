import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The run as its page shows it (RunView); 404 for an unknown or malformed id. */
export const GET = apiRoute<{ id: string }>(async ({ scope, params }) =>
  NextResponse.json(await scope.runs.view(params.id), { headers: { "cache-control": "no-store" } }),
);
