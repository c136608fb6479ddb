import { comparisonExportQuery, comparisonInputSchema, DEFAULT_MARGIN_PERCENT, marginQuery } from "@opsbench/api";
import { loadCompareData } from "@/features/compare/load-compare-data";
import { verdictOptionsOfParams, withVerdictMargin } from "@/features/compare/margin";
import { selectionFromQuery } from "@/features/compare/selection";
import { ApiError, apiRoute, parseInput } from "@/lib/api/errors";
import { comparisonTable } from "@/lib/export/comparison-tables";
import { toCsv, toJson } from "@/lib/export/data-table";
import { exportFileName } from "@/lib/export/download";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * One table or series of a comparison as a file:
 * GET /api/v1/comparisons/export?format=csv|json&table=summary|runs|series|distribution|box|infra|verdicts|cost&g=...|study=...[&margin=5][&runCv=5][&primary=p95][&effect=10][&failureMargin=50]
 */
export const GET = apiRoute(async ({ request, scope }) => {
  const params = new URL(request.url).searchParams;
  const q = parseInput(comparisonExportQuery, { format: params.get("format") ?? undefined, table: params.get("table") ?? undefined });
  const { margin = DEFAULT_MARGIN_PERCENT } = parseInput(marginQuery, { margin: params.get("margin") ?? undefined });
  const cv = verdictOptionsOfParams(params);
  const raw = selectionFromQuery(params);
  if (raw === null)
    throw new ApiError("invalid_input", "nothing to export: give g=<label>:<runId>,<runId> or study=<studyId>", [
      { path: "g", message: "expected at least one group" },
    ]);
  const data = withVerdictMargin(await loadCompareData(scope, parseInput(comparisonInputSchema(raw), raw), cv), margin / 100);
  const table = comparisonTable(data, q.table);
  const body = q.format === "csv" ? toCsv(table) : toJson(table);
  return new Response(body, {
    headers: {
      "content-type": q.format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="${exportFileName(q.table, q.format)}"`,
      "cache-control": "no-store",
    },
  });
});
