// A window of a comparison's series (the spike, say) at the finest resolution a chart
// can show: every second when the window is short enough, else the 10 s or 1 min
// rollups. Groups merge as in the comparison (histograms add, requests are averaged
// across the runs that reached a bucket). Callers check workspace access.
import { averagedSeries, CHART_POINT_BUDGET, type ResultCell, type TimeBucket } from "@opsbench/core";
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

/** One run's cells of [from, to) on the common clock (ts = epoch + seconds since its load start), at `bucketSeconds`. */
async function runWindowCells(db: Db, runId: string, bucketSeconds: 1 | 10 | 60, from: number, to: number): Promise<ResultCell[]> {
  if (bucketSeconds !== 1) {
    const rollup = (await loadRunRollups(db, [runId], [bucketSeconds], { windows: false })).get(runId);
    if (rollup) return rollup.cells.get(bucketSeconds)!.filter((c) => c.ts.getTime() >= from * 1000 && c.ts.getTime() < to * 1000);
  }
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { loadStartedAt: true } });
  const first =
    run.loadStartedAt ?? (await db.resultSecond.findFirst({ where: { runId }, orderBy: { ts: "asc" }, select: { ts: true } }))?.ts;
  if (!first) return [];
  const start = Math.floor(first.getTime() / 1000) * 1000;
  const cells = await loadResultCells(db, runId, { from: new Date(start + from * 1000), to: new Date(start + to * 1000) });
  return cells.map((c) => ({ ...c, ts: new Date(c.ts.getTime() - start) }));
}

export async function loadComparisonWindow(
  db: Db,
  groups: ComparisonGroupInput[],
  fromSeconds: number,
  toSeconds: number,
): Promise<SeriesWindow> {
  const bucketSeconds = windowResolution(toSeconds - fromSeconds);
  const series = await Promise.all(
    groups.map(async (g) => {
      const runs = await Promise.all(g.runIds.map((id) => runWindowCells(db, id, bucketSeconds, fromSeconds, toSeconds)));
      const withCells = runs.filter((cells) => cells.length > 0).map((cells) => ({ cells, start: new Date(0) }));
      return averagedSeries(withCells, bucketSeconds).filter((b) => b.offsetSeconds >= fromSeconds && b.offsetSeconds < toSeconds);
    }),
  );
  return { fromSeconds, toSeconds, bucketSeconds, series };
}
