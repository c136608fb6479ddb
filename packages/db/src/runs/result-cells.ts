// A run's stored per-second cells (result_seconds), read back as core's ResultCells. Its own module so that the
// run view, comparisons and rollups all read cells here without importing one another.
import type { ResultCell } from "@opsbench/core";
import type { Db } from "../client";
import { cellFromRow } from "./result-cell-row";

export async function loadResultCells(db: Db, runId: string, window?: { from: Date; to: Date }): Promise<ResultCell[]> {
  const rows = await db.resultSecond.findMany({
    where: { runId, ...(window ? { ts: { gte: window.from, lt: window.to } } : {}) },
    orderBy: { ts: "asc" },
  });
  return rows.map((r) => cellFromRow(r, r.ts));
}

/** The cells of several runs in one query, by run id (every id is a key, with [] when it has none). */
export async function loadResultCellsOfRuns(db: Db, runIds: readonly string[]): Promise<Map<string, ResultCell[]>> {
  const byRun = new Map<string, ResultCell[]>(runIds.map((id) => [id, []]));
  if (runIds.length === 0) return byRun;
  const rows = await db.resultSecond.findMany({ where: { runId: { in: [...new Set(runIds)] } }, orderBy: { ts: "asc" } });
  for (const r of rows) byRun.get(r.runId)?.push(cellFromRow(r, r.ts));
  return byRun;
}
