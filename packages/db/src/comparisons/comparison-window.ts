// A window of a comparison's series (the spike, say) at the finest resolution a chart
// can show: every second when the window is short enough, else the 10 s or 1 min
// rollups. Groups merge as in the comparison (histograms add, requests are averaged
// over every run whose load window reaches a bucket, with or without requests there).
// Second 0 is each run's analysis window's start (after its warm-up). Callers check workspace access.
import {
  analysisStartMs,
  averagedSeries,
  CHART_POINT_BUDGET,
  decidedWarmupSeconds,
  readStoredJson,
  runSummarySchema,
  type ResultCell,
  type TimeBucket,
} from "@opsbench/core";
import type { Db } from "../client";
import type { ComparisonGroupInput } from "./comparison";
import { loadRunRollups } from "../runs/run-rollups";
import { loadResultCells } from "../runs/result-cells";

export interface SeriesWindow {
  fromSeconds: number;
  toSeconds: number;
  bucketSeconds: number;
  /** Per group, in the order asked for. */
  series: TimeBucket[][];
}

/** The finest stored resolution that keeps `seconds` within a chart's point budget. */
export const windowResolution = (seconds: number): 1 | 10 | 60 =>
  seconds <= CHART_POINT_BUDGET ? 1 : seconds <= CHART_POINT_BUDGET * 10 ? 10 : 60;

/**
 * One run's cells of [from, to) on the common clock (ts = epoch + seconds since its analysis window's start: the
 * load start after its warm-up, the rollups' second 0), at `bucketSeconds`, with the length of its analysis window.
 */
async function runWindowCells(
  db: Db,
  runId: string,
  bucketSeconds: 1 | 10 | 60,
  from: number,
  to: number,
): Promise<{ cells: ResultCell[]; loadSeconds: number | null }> {
  const run = await db.run.findUniqueOrThrow({
    where: { id: runId },
    select: { loadStartedAt: true, summary: true, study: { select: { warmupSeconds: true } } },
  });
  const summary = readStoredJson(runSummarySchema, run.summary);
  const loadSeconds = summary && summary.durationSeconds > 0 ? summary.durationSeconds : null;
  if (bucketSeconds !== 1) {
    const rollup = (await loadRunRollups(db, [runId], [bucketSeconds], { windows: false })).get(runId);
    if (rollup) {
      const cells = rollup.cells.get(bucketSeconds)!.filter((c) => c.ts.getTime() >= from * 1000 && c.ts.getTime() < to * 1000);
      return { cells, loadSeconds };
    }
  }
  const first =
    run.loadStartedAt ?? (await db.resultSecond.findFirst({ where: { runId }, orderBy: { ts: "asc" }, select: { ts: true } }))?.ts;
  if (!first) return { cells: [], loadSeconds };
  const start = analysisStartMs(first, decidedWarmupSeconds(run.study?.warmupSeconds, summary));
  const cells = await loadResultCells(db, runId, { from: new Date(start + from * 1000), to: new Date(start + to * 1000) });
  return { cells: cells.map((c) => ({ ...c, ts: new Date(c.ts.getTime() - start) })), loadSeconds };
}

export async function loadComparisonWindow(
  db: Db,
  groups: ComparisonGroupInput[],
  fromSeconds: number,
  toSeconds: number,
): Promise<SeriesWindow> {
  const bucketSeconds = windowResolution(toSeconds - fromSeconds);
  // The window's clock starts at its first whole bucket, so the stored 10 s and 1 min buckets keep their edges.
  const origin = Math.floor(fromSeconds / bucketSeconds) * bucketSeconds;
  const series = await Promise.all(
    groups.map(async (g) => {
      const runs = await Promise.all(g.runIds.map((id) => runWindowCells(db, id, bucketSeconds, fromSeconds, toSeconds)));
      // Every run of the group counts in every bucket of its load window inside the zoom, requests or not: a
      // repetition's outage is its zeros in the group's mean, as in the comparison. A run whose window is not
      // known counts where it has cells.
      const inWindow = runs.map(({ cells, loadSeconds }) => ({
        cells: cells.map((c) => ({ ...c, ts: new Date(c.ts.getTime() - origin * 1000) })),
        start: new Date(0),
        ...(loadSeconds !== null ? { loadSeconds: Math.max(0, Math.min(toSeconds, loadSeconds) - origin) } : {}),
      }));
      const counted = inWindow.filter((r) => (r.loadSeconds ?? 0) > 0 || r.cells.length > 0);
      return averagedSeries(counted, bucketSeconds)
        .map((b) => ({ ...b, offsetSeconds: b.offsetSeconds + origin }))
        .filter((b) => b.offsetSeconds >= fromSeconds && b.offsetSeconds < toSeconds);
    }),
  );
  return { fromSeconds, toSeconds, bucketSeconds, series };
}
