// A finished run's rollup (core's compare/run-rollup.ts) in run_rollups and
// run_rollup_cells: written when the run is analysed or imported, read by comparisons
// and by the page of a long run. Writing one forgets the stored comparisons of the run.
import {
  readStoredJson,
  pageBucketSeconds,
  runPageSeries,
  runPageSeriesSchema,
  runRollup,
  runRollupWindowsSchema,
  runSummarySchema,
  type ResultCell,
  type RollupBucketSeconds,
  type RunRollupWindows,
} from "@opsbench/core";
import { insertRollupCells } from "./bulk-insert";
import type { Db } from "../client";
import { forgetComparisonsOf } from "../comparisons/comparison-cache";
import { jsonInput } from "../json-column";
import { loadMeasuredCells } from "./measured-cells";
import { cellFromRow, rowFromCell } from "./result-cell-row";

/**
 * A run's rollup from its cells after its study's warm-up, on a clock whose second 0 is the end of the warm-up
 * (the measured window's start), so verdicts, tables and series of a comparison all begin there. Null without data.
 */
export async function measuredRollup(db: Db, runId: string, loadSeconds?: number) {
  const { cells, warmupSeconds, loadStart } = await loadMeasuredCells(db, runId);
  if (!loadStart) return null;
  // loadSeconds (the summary's durationSeconds) is the measured window's length, the warm-up already left out.
  return runRollup(cells, new Date(Math.floor(loadStart.getTime() / 1000) * 1000 + warmupSeconds * 1000), loadSeconds);
}

/** Computes and stores the rollup of a run from its per-second cells (again, when there was one). */
export async function storeRunRollup(db: Db, runId: string): Promise<void> {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { summary: true } });
  const summarySeconds = readStoredJson(runSummarySchema, run.summary)?.durationSeconds;
  const rollup = await measuredRollup(db, runId, summarySeconds);
  if (!rollup) return;
  const pageBucket = pageBucketSeconds(summarySeconds ?? 0);
  await db.$transaction(
    async (tx) => {
      await tx.runRollup.deleteMany({ where: { runId } });
      await tx.runRollup.create({
        data: {
          runId,
          loadStart: rollup.loadStart,
          loadSeconds: summarySeconds ?? 0,
          windows: jsonInput(runRollupWindowsSchema, rollup.windows),
          pageSeries: jsonInput(runPageSeriesSchema, runPageSeries(rollup.cells[pageBucket], pageBucket)),
        },
      });
      const rows = Object.entries(rollup.cells).flatMap(([seconds, list]) =>
        list.map((c) => ({
          bucketSeconds: Number(seconds),
          offsetSeconds: Math.round(c.ts.getTime() / 1000),
          ...rowFromCell(c),
        })),
      );
      await insertRollupCells(tx, runId, rows);
    },
    { maxWait: 10_000, timeout: 5 * 60_000 },
  );
  await forgetComparisonsOf(db, [runId]);
}

export interface StoredRollup {
  loadStart: Date;
  computedAt: Date;
  windows: RunRollupWindows;
  /** Cells of the asked bucket lengths; ts = epoch + offset. */
  cells: Map<RollupBucketSeconds, ResultCell[]>;
}

/** The stored rollups of these runs (runs without one are absent), with the cells of the bucket lengths asked for. */
export async function loadRunRollups(
  db: Db,
  runIds: readonly string[],
  buckets: readonly RollupBucketSeconds[],
  opts: { windows?: boolean } = {},
): Promise<Map<string, StoredRollup>> {
  const out = new Map<string, StoredRollup>();
  if (runIds.length === 0) return out;
  const heads = await db.runRollup.findMany({
    where: { runId: { in: [...runIds] } },
    select: { runId: true, loadStart: true, computedAt: true, windows: opts.windows !== false },
  });
  for (const h of heads) {
    const windows = opts.windows === false ? emptyWindows : readStoredJson(runRollupWindowsSchema, h.windows);
    // A row that no longer parses counts as missing: the caller falls back to the per-second cells.
    if (!windows) continue;
    out.set(h.runId, {
      loadStart: h.loadStart,
      computedAt: h.computedAt,
      windows,
      cells: new Map(buckets.map((b) => [b, []])),
    });
  }
  if (buckets.length && out.size) {
    const rows = await db.runRollupCell.findMany({
      where: { runId: { in: [...out.keys()] }, bucketSeconds: { in: [...buckets] } },
      orderBy: [{ runId: "asc" }, { bucketSeconds: "asc" }, { offsetSeconds: "asc" }],
    });
    for (const r of rows)
      out
        .get(r.runId)!
        .cells.get(r.bucketSeconds as RollupBucketSeconds)!
        .push(cellFromRow(r, new Date(r.offsetSeconds * 1000)));
  }
  return out;
}

const emptyWindows: RunRollupWindows = {
  offsetSeconds: [],
  requests: [],
  p50Ms: [],
  p95Ms: [],
  p99Ms: [],
  goodput: [],
  maxThroughput: null,
  above: { p50: [], p95: [], p99: [], counted: [] },
};
