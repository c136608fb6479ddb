import { NextResponse } from "next/server";
import { z } from "zod";
import { apiRoute, parseInput } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const windowQuery = z
  .object({
    from: z.coerce.number().min(0),
    to: z.coerce.number().positive(),
  })
  .refine((w) => w.to > w.from, { message: "to must be after from", path: ["to"] });

/**
 * The summary of any window of a run, merged from its per-second histograms:
 * GET /api/v1/runs/:id/summary?from=840&to=960 (seconds after the load started).
 */
export const GET = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const q = parseInput(windowQuery, Object.fromEntries(new URL(request.url).searchParams));
  return NextResponse.json(await scope.runs.windowSummary(params.id, q.from, q.to), { headers: { "cache-control": "no-store" } });
});
