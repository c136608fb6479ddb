import { NextResponse } from "next/server";
import { comparisonInputSchema, DEFAULT_MARGIN_PERCENT, marginQuery } from "@opsbench/api";
import { loadCompareData } from "@/features/compare/load-compare-data";
import { verdictOptionsOfParams, withVerdictMargin } from "@/features/compare/margin";
import { selectionFromQuery } from "@/features/compare/selection";
import { ApiError, apiRoute, parseInput, readJson } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const NO_STORE = { headers: { "cache-control": "no-store" } };

/**
 * Runs or study cells side by side: body `{ groups: [{ label?, runIds }] }` or
 * `{ studyId }` (every cell of the study, its succeeded runs). Returns the
 * ComparisonView (groups, verdicts) with a title and cost per group.
 */
export const POST = apiRoute(async ({ request, scope }) => {
  const raw = await readJson(request);
  const input = parseInput(comparisonInputSchema(raw), raw);
  return NextResponse.json(await loadCompareData(scope, input), NO_STORE);
});

/** The same, with the selection in the query: `?g=<label>:<runId>,<runId>&g=...` or `?study=<studyId>`; `&margin=<percent>` for the verdicts (default 5); `&runCv=<percent>` states a run-to-run CV for single runs; `&primary=<metric>` the family's metric (default p95), `&effect=<percent>` the difference power is stated for, `&failureMargin=<percent>` the failure share's margin on its odds. */
export const GET = apiRoute(async ({ request, scope }) => {
  const params = new URL(request.url).searchParams;
  const { margin = DEFAULT_MARGIN_PERCENT } = parseInput(marginQuery, { margin: params.get("margin") ?? undefined });
  const cv = verdictOptionsOfParams(params);
  const raw = selectionFromQuery(params);
  if (raw === null) {
    throw new ApiError("invalid_input", "nothing to compare: give g=<label>:<runId>,<runId> (one per group) or study=<studyId>", [
      { path: "g", message: "expected at least one group" },
    ]);
  }
  const input = parseInput(comparisonInputSchema(raw), raw);
  return NextResponse.json(withVerdictMargin(await loadCompareData(scope, input, cv), margin / 100), NO_STORE);
});
