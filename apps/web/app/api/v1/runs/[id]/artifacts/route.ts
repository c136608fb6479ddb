import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The files the run's k6 script wrote with handleSummary(): names and sizes (each downloadable at ./{name}). */
export const GET = apiRoute<{ id: string }>(async ({ scope, params }) =>
  NextResponse.json(
    (await scope.runs.artifacts(params.id)).map((a) => ({ name: a.name, size: a.size, createdAt: a.createdAt.toISOString() })),
    { headers: { "cache-control": "no-store" } },
  ),
);
