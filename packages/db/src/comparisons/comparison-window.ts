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
  /** Per group, the load it was offered in the same buckets (the runs' per-second load rows, averaged over its runs). */
  load: LoadBucket[][];
  /** Per group: its runs were closed-loop (VUs that wait for answers: the load is VUs), else open (arrivals/s). */
  closedLoop: boolean[];
  /** Per group, its longest run's analysis window (s): a bucket reaching past it is partial. Null when not known. */
  loadSeconds: Array<number | null>;
}

/** A bucket of offered load: the most VUs in it, and the iterations started or dropped per second (scheduled arrivals). */
export interface LoadBucket {
  offsetSeconds: number;
  vus: number;
  arrivalsPerSecond: number;
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
): Promise<{ cells: ResultCell[]; loadSeconds: number | null; load: LoadBucket[]; closedLoop: boolean }> {
  const { start, loadSeconds, closedLoop } = await analysisWindowOf(db, runId);
  if (start === null) return { cells: [], loadSeconds, load: [], closedLoop };
  const range = { from: new Date(start + from * 1000), to: new Date(start + to * 1000) };
  const load = await loadBucketsOfRun(db, runId, start, bucketSeconds, from, to);
  if (bucketSeconds !== 1) {
    const rollup = (await loadRunRollups(db, [runId], [bucketSeconds], { windows: false })).get(runId);
    if (rollup) {
      const cells = rollup.cells.get(bucketSeconds)!.filter((c) => c.ts.getTime() >= from * 1000 && c.ts.getTime() < to * 1000);
      return { cells, loadSeconds, load, closedLoop };
    }
  }
  const cells = await loadResultCells(db, runId, range);
  return { cells: cells.map((c) => ({ ...c, ts: new Date(c.ts.getTime() - start) })), loadSeconds, load, closedLoop };
}

/** A run's analysis window: its start (ms; null before any data), its length as its summary says, and its loop. */
async function analysisWindowOf(db: Db, runId: string) {
  const run = await db.run.findUniqueOrThrow({
    where: { id: runId },
    select: { loadStartedAt: true, summary: true, study: { select: { warmupSeconds: true } } },
  });
  const summary = readStoredJson(runSummarySchema, run.summary);
  const loadSeconds = summary && summary.durationSeconds > 0 ? summary.durationSeconds : null;
  const closedLoop = summary?.coordinatedOmission?.closedLoop === true;
  const first =
    run.loadStartedAt ?? (await db.resultSecond.findFirst({ where: { runId }, orderBy: { ts: "asc" }, select: { ts: true } }))?.ts;
  return { start: first ? analysisStartMs(first, decidedWarmupSeconds(run.study?.warmupSeconds, summary)) : null, loadSeconds, closedLoop };
}

/**
 * Where the runs' data ends (s after each one's analysis window's start), the longest of them: their load windows and
 * the seconds with answers after them (requests still in flight when the load stopped). The whole runs' window ends here.
 */
export async function runsDataEndSeconds(db: Db, runIds: readonly string[]): Promise<number> {
  let end = 1;
  for (const runId of runIds) {
    const { start, loadSeconds } = await analysisWindowOf(db, runId);
    if (start === null) continue;
    const last = await db.resultSecond.findFirst({ where: { runId }, orderBy: { ts: "desc" }, select: { ts: true } });
    end = Math.max(end, Math.ceil(loadSeconds ?? 0), last ? Math.floor((last.ts.getTime() - start) / 1000) + 1 : 0);
  }
  return end;
}

/**
 * A run's offered load in buckets of `bucketSeconds` from `startMs` (its analysis window's start), over [from, to)
 * seconds: per bucket the most VUs in a second (the generators' VUs added per second) and the iterations started or
 * dropped per second. Summed in Postgres: a 24 h run has 86,400 load rows a generator.
 */
export async function loadBucketsOfRun(
  db: Db,
  runId: string,
  startMs: number,
  bucketSeconds: number,
  from: number,
  to: number,
): Promise<LoadBucket[]> {
  const start = new Date(startMs);
  const rows = await db.$queryRaw<Array<{ offset: number; vus: number; arrivals: number }>>`
    SELECT (floor(extract(epoch FROM ts - ${start}::timestamptz) / ${bucketSeconds}) * ${bucketSeconds})::float8 AS offset,
           max(vus)::float8 AS vus, sum(arrivals)::float8 AS arrivals
    FROM (SELECT ts, sum(vus) AS vus, sum(iterations + dropped_iterations) AS arrivals
          FROM load_seconds
          WHERE run_id = ${runId}::uuid AND ts >= ${new Date(startMs + from * 1000)} AND ts < ${new Date(startMs + to * 1000)}
          GROUP BY ts) per_second
    GROUP BY 1 ORDER BY 1`;
  return rows.map((r) => ({ offsetSeconds: r.offset, vus: r.vus, arrivalsPerSecond: r.arrivals / bucketSeconds }));
}

/** A group's load: per bucket, the mean over the runs that have load rows there. */
function meanLoad(runs: ReadonlyArray<readonly LoadBucket[]>): LoadBucket[] {
  const sums = new Map<number, LoadBucket & { n: number }>();
  for (const run of runs)
    for (const b of run) {
      const s = sums.get(b.offsetSeconds) ?? { offsetSeconds: b.offsetSeconds, vus: 0, arrivalsPerSecond: 0, n: 0 };
      sums.set(b.offsetSeconds, s);
      s.vus += b.vus;
      s.arrivalsPerSecond += b.arrivalsPerSecond;
      s.n += 1;
    }
  return [...sums.values()]
    .sort((a, b) => a.offsetSeconds - b.offsetSeconds)
    .map(({ offsetSeconds, vus, arrivalsPerSecond, n }) => ({
      offsetSeconds,
      vus: Math.round((vus / n) * 10) / 10,
      arrivalsPerSecond: Math.round((arrivalsPerSecond / n) * 100) / 100,
    }));
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
  const perGroup = await Promise.all(
    groups.map(async (g) => {
      const runs = await Promise.all(g.runIds.map((id) => runWindowCells(db, id, bucketSeconds, fromSeconds, toSeconds)));
      const known = runs.map((r) => r.loadSeconds).filter((s): s is number => s !== null);
      const series = windowSeries(runs);
      return {
        series,
        load: meanLoad(runs.map((r) => r.load)),
        closedLoop: runs.length > 0 && runs.every((r) => r.closedLoop),
        loadSeconds: known.length ? Math.max(...known) : null,
      };
    }),
  );
  return {
    fromSeconds,
    toSeconds,
    bucketSeconds,
    series: perGroup.map((g) => g.series),
    load: perGroup.map((g) => g.load),
    closedLoop: perGroup.map((g) => g.closedLoop),
    loadSeconds: perGroup.map((g) => g.loadSeconds),
  };

  function windowSeries(runs: Array<{ cells: ResultCell[]; loadSeconds: number | null }>) {
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
  }
}
