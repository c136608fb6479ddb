import {
  bucketize,
  CHART_POINT_BUDGET,
  lttbIndexes,
  decodeBuckets,
  summarize,
  summarizeMetrics,
  type CheckSummary,
  type CustomMetricSummary,
  type MetricCell,
  type MetricKind,
  type RecordedProvenance,
  type RunSummary,
  scriptEnvSchema,
  shownScriptEnv,
  type TimeBucket,
  thresholdResults,
  type ThresholdResult,
} from "@opsbench/core";
import {
  flagsOfRun,
  isFinalRunStatus,
  loadAdmission as loadAdmissionSchema,
  type LoadAdmission,
  pageBucketSeconds,
  readStoredJson,
  runPageSeries,
  runPageSeriesSchema,
  vcpuPerReplica,
  windowsOfRollup,
  type ValidityFlag,
} from "@opsbench/core";
import { jsonInput } from "../json-column";
import { loadComparison } from "../comparisons/comparison";
import {
  loadBucketsOfRun,
  loadComparisonWindow,
  type LoadBucket,
  runsDataEndSeconds,
  windowResolution,
} from "../comparisons/comparison-window";
import { loadRunRollups } from "./run-rollups";
import type { Db } from "../client";
import { loadResultCells } from "./result-cells";
import { parseRunJson } from "./run-json";
import { recordedProvenance } from "./run-provenance";
import { loadRunInfra, type RunInfra } from "./run-infra";

export interface RunView {
  id: string;
  status: string;
  studyId: string | null;
  repetition: number;
  /** Null for runs imported from k6 result files. */
  target: { name: string; kind: string } | null;
  workload: { name: string } | null;
  source: string;
  name: string | null;
  createdAt: string;
  startedAt: string | null;
  loadStartedAt: string | null;
  loadFinishedAt: string | null;
  finishedAt: string | null;
  k6Version: string | null;
  k6ExitCode: number | null;
  thresholdsOk: boolean | null;
  /** Each k6 threshold and whether it held (from k6's end-of-test summary; empty without one, e.g. a run on several generators). */
  thresholds: ThresholdResult[];
  error: string | null;
  /** Validity flags: those stored on the run (runs.flags) and those its summary implies (core's flagsOfRun), reasons to read the numbers with care. */
  flags: ValidityFlag[];
  /** How the load host was admitted before k6 started, with the pinned address (null: opsbench started the target). */
  loadAdmission: LoadAdmission | null;
  steps: Array<{
    name: string;
    status: string;
    startedAt: string;
    finishedAt: string | null;
    durationMs: number | null;
    error: string | null;
  }>;
  /** Null until load has produced data. Live while the run is going. */
  summary: RunSummary | null;
  /** Buckets from the load start: 10 s, 1 min for a long finished run, or a zoomed window's finest resolution. */
  series: { bucketSeconds: number; points: TimeBucket[]; window: { fromSeconds: number; toSeconds: number } | null };
  /**
   * The offered load in the series' buckets (load_seconds): VUs for a closed-loop run (VUs that wait for each answer),
   * else the scheduled arrivals (iterations started or dropped) per second. At most CHART_POINT_BUDGET points.
   */
  load: { closedLoop: boolean; points: LoadBucket[] };
  events: Array<{ ts: string; level: string; message: string }>;
  /** k6 checks per check name (passes, fails, 10 s series); empty when the script has none. */
  checks: CheckSummary[];
  /** The script's own k6 metrics (counters, rates, trends, gauges). */
  customMetrics: CustomMetricSummary[];
  /** The target's infra timeline (replicas/instances, CPU, cold starts, queue) on the load's time axis (run-infra.ts). */
  infra: RunInfra;
  /** When the retention sweep removed the raw per-second series (charts are empty; the summary stays); null: all there. */
  seriesPrunedAt: string | null;
  /** vCPUs of one replica as the run's target spec gives them (throughput per vCPU); null when it does not say. */
  vcpuPerReplica: number | null;
  /** The code and build the run is of (commit, branch, pull request, build URL; null where unset) and its labels. */
  provenance: RecordedProvenance;
  /** The script's __ENV besides OPSBENCH_BASE_URL: --env values as given, secrets' values as *** (core script-env.ts). */
  scriptEnv: Array<{ key: string; value: string; secret: boolean }>;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export async function loadMetricCells(db: Db, runId: string): Promise<MetricCell[]> {
  const rows = await db.metricSecond.findMany({ where: { runId }, orderBy: { ts: "asc" } });
  return rows.map((r) => ({
    ts: r.ts,
    kind: r.kind as MetricKind,
    name: r.name,
    unit: r.unit,
    count: r.count,
    passes: r.passes,
    sum: r.sum,
    min: r.min,
    max: r.max,
    last: r.last,
    buckets: r.buckets ? decodeBuckets(r.buckets) : null,
  }));
}

export interface RunViewOptions {
  /** Seconds after the load start: the series of this window only, at its finest resolution (a zoom). */
  window?: { fromSeconds: number; toSeconds: number };
}

/**
 * Whole-run series of a finished run from its stored rollup: 10 s buckets, or 1 min ones when 10 s would be too many to draw.
 * Read from the rollup's stored page series (one row); a rollup stored before that column existed gets it now, once.
 */
async function rolledUpSeries(db: Db, runId: string) {
  const head = await db.runRollup.findUnique({ where: { runId }, select: { loadStart: true, loadSeconds: true, pageSeries: true } });
  if (!head) return null;
  let stored = readStoredJson(runPageSeriesSchema, head.pageSeries);
  if (!stored) {
    const bucketSeconds = pageBucketSeconds(head.loadSeconds);
    const cells = (await loadRunRollups(db, [runId], [bucketSeconds], { windows: false })).get(runId)?.cells.get(bucketSeconds);
    stored = runPageSeries(cells ?? [], bucketSeconds);
    await db.runRollup.update({ where: { runId }, data: { pageSeries: jsonInput(runPageSeriesSchema, stored) } });
  }
  return { loadStart: head.loadStart, series: { bucketSeconds: stored.bucketSeconds, points: windowsOfRollup(stored) } };
}

/** The run as its page and the CLI show it. Callers check workspace access first (workspace-scope.ts). */
export async function loadRunView(db: Db, runId: string, opts: RunViewOptions = {}): Promise<RunView> {
  const run = parseRunJson(
    await db.run.findUniqueOrThrow({
      where: { id: runId },
      include: {
        target: { select: { name: true, kind: true } },
        workload: { select: { name: true } },
        steps: { orderBy: { startedAt: "asc" } },
        events: { orderBy: { ts: "asc" }, take: 200 },
      },
    }),
  );
  // A finished, analysed run reads its stored summary and rollup, never every second again (a 24 h run has 86,400).
  const rolled = isFinalRunStatus(run.status) && run.summary ? await rolledUpSeries(db, runId) : null;
  const cells = rolled ? [] : await loadResultCells(db, runId);
  // Cells are whole seconds; align the buckets to the second the load started in.
  const loadStart = rolled?.loadStart ?? run.loadStartedAt ?? cells[0]?.ts ?? null;
  const start = loadStart ? new Date(Math.floor(loadStart.getTime() / 1000) * 1000) : null;
  const end = run.loadFinishedAt ?? (cells.length ? new Date(cells[cells.length - 1]!.ts.getTime() + 1000) : null);
  const live = rolled ? null : start && end && cells.length ? summarize(cells, (end.getTime() - start.getTime()) / 1000) : null;
  // A short finished run is drawn a point a second (as the compare page draws it: windowResolution), to its last second
  // with answers (every request its summary counts); a longer one from its rollup.
  const seconds = run.summary?.durationSeconds ?? 0;
  const series = opts.window
    ? await windowSeries(db, runId, opts.window)
    : rolled && seconds > 0 && windowResolution(seconds) === 1
      ? await windowSeries(db, runId, { fromSeconds: 0, toSeconds: await runsDataEndSeconds(db, [runId]) })
      : (rolled?.series ?? { bucketSeconds: 10, points: start ? bucketize(cells, start, 10) : [] });
  return {
    id: run.id,
    status: run.status,
    studyId: run.studyId,
    repetition: run.repetition,
    target: run.target,
    workload: run.workload,
    source: run.source,
    name: run.name,
    createdAt: run.createdAt.toISOString(),
    startedAt: iso(run.startedAt),
    loadStartedAt: iso(run.loadStartedAt),
    loadFinishedAt: iso(run.loadFinishedAt),
    finishedAt: iso(run.finishedAt),
    k6Version: run.k6Version,
    k6ExitCode: run.k6ExitCode,
    thresholdsOk: run.thresholdsOk,
    thresholds: thresholdResults(run.k6Summary),
    error: run.error,
    flags: flagsOfRun({ flags: run.flags, summary: run.summary ?? live }),
    loadAdmission: readStoredJson(loadAdmissionSchema, run.loadAdmission),
    steps: run.steps.map((s) => ({
      name: s.name,
      status: s.status,
      startedAt: s.startedAt.toISOString(),
      finishedAt: iso(s.finishedAt),
      durationMs: s.finishedAt ? s.finishedAt.getTime() - s.startedAt.getTime() : null,
      error: s.error,
    })),
    // Zoomed: the cards are the window's (its seconds' histograms merged), as on the compare page.
    summary: (opts.window && run.summary ? await windowSummary(db, runId, opts.window) : null) ?? run.summary ?? live,
    series: { ...series, window: opts.window ?? null },
    load: {
      closedLoop: run.summary?.coordinatedOmission?.closedLoop === true,
      points: start ? await runLoad(db, runId, start.getTime(), series.bucketSeconds, opts.window ?? null, end) : [],
    },
    events: run.events.map((e) => ({ ts: e.ts.toISOString(), level: e.level, message: e.message })),
    ...summarizeMetrics(await loadMetricCells(db, runId), start, start && end ? (end.getTime() - start.getTime()) / 1000 : 0),
    infra: await loadRunInfra(db, runId, start),
    seriesPrunedAt: iso(run.seriesPrunedAt),
    vcpuPerReplica: run.targetSpec ? vcpuPerReplica(run.targetSpec.kind, run.targetSpec.spec) : null,
    provenance: recordedProvenance(run),
    scriptEnv: shownScriptEnv(readStoredJson(scriptEnvSchema, run.scriptEnv) ?? {}, run.scriptSecrets ?? []),
  };
}

/**
 * The summary of any window of a run, e.g. "p95 during the spike, minutes 14-16":
 * merged from the per-second histograms of [fromSeconds, toSeconds) after the load started.
 */
export async function loadWindowSummary(db: Db, runId: string, fromSeconds: number, toSeconds: number) {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { loadStartedAt: true } });
  const first =
    run.loadStartedAt ?? (await db.resultSecond.findFirst({ where: { runId }, orderBy: { ts: "asc" }, select: { ts: true } }))?.ts;
  if (!first) return null;
  const start = Math.floor(first.getTime() / 1000) * 1000;
  const cells = await loadResultCells(db, runId, { from: new Date(start + fromSeconds * 1000), to: new Date(start + toSeconds * 1000) });
  return { fromSeconds, toSeconds, ...summarize(cells, toSeconds - fromSeconds) };
}

/** One window of the run's series at the finest resolution a chart can show (every second of a short one). */
/** A finished run's summary of the seconds [from, to) of its analysis window (a comparison of it alone, zoomed). */
async function windowSummary(db: Db, runId: string, window: { fromSeconds: number; toSeconds: number }) {
  const view = await loadComparison(db, [{ runIds: [runId] }], { window });
  return view.groups[0]?.runs[0]?.summary ?? null;
}

/** The run's load in buckets over the zoom, else the whole run (to its load's end), reduced to what a chart draws. */
async function runLoad(
  db: Db,
  runId: string,
  startMs: number,
  bucketSeconds: number,
  window: { fromSeconds: number; toSeconds: number } | null,
  end: Date | null,
): Promise<LoadBucket[]> {
  const to = window?.toSeconds ?? (end ? Math.ceil((end.getTime() - startMs) / 1000) + bucketSeconds : 7 * 86_400);
  const points = await loadBucketsOfRun(db, runId, startMs, bucketSeconds, window?.fromSeconds ?? 0, to);
  if (points.length <= CHART_POINT_BUDGET) return points;
  const keep = new Set([
    ...lttbIndexes(
      points.map((p) => p.offsetSeconds),
      points.map((p) => p.vus),
      CHART_POINT_BUDGET / 2,
    ),
    ...lttbIndexes(
      points.map((p) => p.offsetSeconds),
      points.map((p) => p.arrivalsPerSecond),
      CHART_POINT_BUDGET / 2,
    ),
  ]);
  return points.filter((_, i) => keep.has(i));
}

async function windowSeries(db: Db, runId: string, window: { fromSeconds: number; toSeconds: number }) {
  const w = await loadComparisonWindow(db, [{ runIds: [runId] }], window.fromSeconds, window.toSeconds);
  return { bucketSeconds: w.bucketSeconds, points: w.series[0] ?? [] };
}
