import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The study as its page shows it (StudyView: cells, runs, spread, merged results, progress, ETA); 404 for an unknown id. */
export const GET = apiRoute<{ id: string }>(async ({ scope, params }) =>
  NextResponse.json(await scope.studies.view(params.id), { headers: { "cache-control": "no-store" } }),
);
