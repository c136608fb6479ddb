import { studyTablesQuery } from "@opsbench/api";
import { apiRoute, parseInput } from "@/lib/api/errors";
import { toCsv, toJson } from "@/lib/export/data-table";
import { exportFileName } from "@/lib/export/download";
import { studyTable } from "@/lib/export/study-tables";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * One of a study's tables as a file, each figure the mean over a cell's succeeded
 * repetitions with its 95% interval: GET /api/v1/studies/:id/tables?table=request-counts|request-durations|cost|success-ratio|throughput
 * &format=csv|json[&request=<name>] (request: the request name maximum throughput is of; default all).
 */
export const GET = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const q = new URL(request.url).searchParams;
  const input = parseInput(studyTablesQuery, {
    table: q.get("table") ?? undefined,
    format: q.get("format") ?? undefined,
    request: q.get("request") ?? undefined,
  });
  const view = await scope.studies.tables(params.id, { requestName: input.request ?? null });
  const table = studyTable(view, input.table);
  return new Response(input.format === "csv" ? toCsv(table) : toJson(table), {
    headers: {
      "content-type": input.format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="${exportFileName(table.name, input.format)}"`,
      "cache-control": "no-store",
    },
  });
});
