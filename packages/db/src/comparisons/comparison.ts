// Runs or study cells side by side: merged results, series aligned on each run's
// load start, latency distributions, infra timelines, and verdicts with their
// confidence intervals (what is compared and how: core's compare/comparison-samples.ts
// and statistics/verdict-method.ts). Each run contributes its stored rollup (run-rollups.ts:
// a few rows, not every second); a comparison of finished runs is stored by its selection
// and served again until one of its runs is analysed again (comparison-cache.ts).
// Callers check workspace access (workspace-scope.ts).
import { createHash } from "node:crypto";
import {
  comparisonVerdicts,
  comparisonViewSchema,
  isFinalRunStatus,
  readStoredJson,
  runRollup,
  summarize,
  summarizeRollups,
  windowsOfRollup,
  runRollupWindowsSchema,
  tenSecondSeriesOf,
  type RunRollupWindows,
  type MetricVerdict,
  type RolledUpRun,
  type RequestLatency,
  type RunSummary,
  type TimeBucket,
  type ValidityFlag,
  type VerdictExclusions,
  flagsOfRun,
  verdictExcludingFlags,
  VERDICT_VERSION,
} from "@opsbench/core";
import type { Db } from "../client";
import { keepComparison } from "./comparison-cache";
import { jsonInput } from "../json-column";
import { parseRunJson } from "../runs/run-json";
import { loadMeasuredCells } from "../runs/measured-cells";
import { loadRunRollups, measuredRollup, storeRunRollup, type StoredRollup } from "../runs/run-rollups";

export interface ComparisonGroupInput {
  label?: string;
  runIds: string[];
}

/** How the verdicts are made; part of what a stored comparison is found by. */
export interface ComparisonOptions {
  /** Practical-equivalence margin (0.05 = 5%); the statistics module's default when absent. */
  margin?: number;
  /** Seed of the bootstrap (30+ runs a side). */
  seed?: number;
  /**
   * A stated run-to-run coefficient of variation (0.05 = 5%): single runs a side are then judged between
   * configurations, their intervals widened by it; without it they are "within-run" and never significant.
   */
  runToRunCv?: number;
  /** "within-workload" (a study): targets are compared within each workload, never across; default: each group against the first. */
  pairing?: "first" | "within-workload";
  /** Judge runs whose validity flags would leave them out of the verdicts (partial, dropped iterations, ...) too. */
  includeFlagged?: boolean;
  /** The metric judged in the family (default p95); the others are descriptive. */
  primaryMetric?: string;
  /** The difference power and runs needed are stated for (0.1 = 10%). */
  effect?: number;
  /** The failure share's margin on its odds (0.5 = +-50%). */
  failureMargin?: number;
  /**
   * A zoom: only the seconds [fromSeconds, toSeconds) of each run's analysis window count (verdicts, merged results,
   * distribution, series, infra), recomputed from the per-second cells; such a comparison is never stored.
   */
  window?: ComparisonWindow;
}

/** Seconds after each run's analysis window's start (its load start after the warm-up). */
export interface ComparisonWindow {
  fromSeconds: number;
  toSeconds: number;
}

export interface ComparisonGroup {
  label: string;
  target: { name: string; kind: string } | null;
  workload: { name: string } | null;
  runs: Array<{ id: string; repetition: number; status: string; summary: RunSummary | null; flags: ValidityFlag[] }>;
  /** All runs' seconds merged (histograms added, never percentiles averaged). */
  merged: RunSummary | null;
  /** 10 s buckets from each run's load start, merged across the group's runs. */
  series: TimeBucket[];
  distribution: Array<{ ms: number; cumulative: number }>;
  infra: Array<{ runId: string; offsetSeconds: number; replicas: number; cpuPercent: number | null }>;
  byRequest: RequestLatency[];
}

export interface ComparisonView {
  groups: ComparisonGroup[];
  /** Each group against the first, per metric. */
  verdicts: MetricVerdict[];
  /** The runs left out of the verdicts for their flags (all are still listed, merged and charted). */
  verdictExclusions: VerdictExclusions;
  /** The verdict method's version the verdicts were decided by (core VERDICT_VERSION). */
  verdictVersion: number;
}

/**
 * What a stored comparison is found by: the selection, the options, when each run's rollup was made (and its flags
 * that leave it out of verdicts), and the version of the verdict code (a comparison stored by older code is made again).
 */
export const comparisonCacheKey = (
  groups: readonly ComparisonGroupInput[],
  opts: ComparisonOptions,
  versions: Array<[string, number, ...string[]]>,
  verdictVersion: number = VERDICT_VERSION,
) =>
  createHash("sha256")
    .update(
      JSON.stringify({
        verdictVersion,
        groups: groups.map((g) => ({ label: g.label ?? null, runIds: g.runIds })),
        margin: opts.margin ?? null,
        seed: opts.seed ?? null,
        runToRunCv: opts.runToRunCv ?? null,
        pairing: opts.pairing ?? null,
        includeFlagged: opts.includeFlagged ?? false,
        primaryMetric: opts.primaryMetric ?? null,
        effect: opts.effect ?? null,
        failureMargin: opts.failureMargin ?? null,
        versions,
      }),
    )
    .digest("hex");

/** A rollup's stored 10 s series, when it has one (rollups stored before it do not). */
const ownSeries = (w: RunRollupWindows) => (w.tenSecondSeries ? { series: windowsOfRollup(w.tenSecondSeries) } : {});

/** A run's load window's length, when its summary says it (a run reaches the buckets inside it). */
const loadSecondsOf = (r: { summary: RunSummary | null }) => (r.summary?.durationSeconds ? { loadSeconds: r.summary.durationSeconds } : {});

/**
 * Each run's rollup: the stored one, or (for a run still going, or one analysed before rollups were stored) made now.
 * Its 10 s cells are read only for runs grouped with others (`grouped`) or without a stored 10 s series.
 */
async function rolledUpRuns(
  db: Db,
  runs: Array<{ id: string; status: string; loadStartedAt: Date | null; summary: RunSummary | null }>,
  grouped: ReadonlySet<string>,
) {
  const ids = runs.map((r) => r.id);
  let stored = await loadRunRollups(db, ids, [0]);
  const finishedWithout = runs.filter((r) => !stored.has(r.id) && isFinalRunStatus(r.status));
  if (finishedWithout.length) {
    for (const r of finishedWithout) await storeRunRollup(db, r.id);
    stored = await loadRunRollups(db, ids, [0]);
  }
  const needTens = [...stored].filter(([id, s]) => grouped.has(id) || !s.windows.tenSecondSeries).map(([id]) => id);
  const tens = needTens.length ? await loadRunRollups(db, needTens, [10], { windows: false }) : new Map<string, StoredRollup>();
  // A rollup stored before the 10 s series was: store it now, once (its computedAt, and so the stored comparisons, stay).
  for (const [id, s] of stored)
    if (!s.windows.tenSecondSeries && tens.has(id)) {
      s.windows = { ...s.windows, tenSecondSeries: tenSecondSeriesOf(tens.get(id)!.cells.get(10) ?? []) };
      await db.runRollup.update({ where: { runId: id }, data: { windows: jsonInput(runRollupWindowsSchema, s.windows) } });
    }
  const out = new Map<string, { rolled: RolledUpRun; loadStart: Date }>();
  for (const r of runs) {
    const s = stored.get(r.id);
    if (s) {
      const rolled = {
        whole: s.cells.get(0)!,
        tens: tens.get(r.id)?.cells.get(10) ?? [],
        ...ownSeries(s.windows),
        windows: windowsOfRollup(s.windows),
        maxThroughput: s.windows.maxThroughput,
        above: s.windows.above,
        ...loadSecondsOf(r),
      };
      out.set(r.id, { rolled, loadStart: s.loadStart });
      continue;
    }
    const live = await measuredRollup(db, r.id, r.summary?.durationSeconds);
    if (!live) continue;
    const rolled = {
      whole: live.cells[0],
      tens: live.cells[10],
      ...ownSeries(live.windows),
      windows: windowsOfRollup(live.windows),
      maxThroughput: live.windows.maxThroughput,
      above: live.windows.above,
      ...loadSecondsOf(r),
    };
    out.set(r.id, { rolled, loadStart: live.loadStart });
  }
  return out;
}

/**
 * Each run's rollup of the seconds [from, to) of its analysis window, made now from its per-second cells (histograms
 * add, so the window's percentiles are exact), on a clock whose second 0 is the window's start; with each run's summary
 * of the window (its measurement fields; cost, warm-up and the rest stay the run's).
 */
async function windowedRuns(db: Db, runs: Array<{ id: string; summary: RunSummary | null }>, { fromSeconds, toSeconds }: ComparisonWindow) {
  const out = new Map<string, { rolled: RolledUpRun; loadStart: Date; summary: RunSummary | null; seconds: number }>();
  for (const r of runs) {
    const { cells, warmupSeconds, loadStart } = await loadMeasuredCells(db, r.id);
    if (!loadStart) continue;
    const start = Math.floor(loadStart.getTime() / 1000) * 1000 + warmupSeconds * 1000;
    const end = r.summary?.durationSeconds ? Math.min(toSeconds, r.summary.durationSeconds) : toSeconds;
    const seconds = Math.max(0, end - fromSeconds);
    const inWindow = cells.filter((c) => c.ts.getTime() >= start + fromSeconds * 1000 && c.ts.getTime() < start + end * 1000);
    const rollup = runRollup(inWindow, new Date(start + fromSeconds * 1000), seconds || undefined);
    const rolled: RolledUpRun = {
      whole: rollup.cells[0],
      tens: rollup.cells[10],
      windows: windowsOfRollup(rollup.windows),
      maxThroughput: rollup.windows.maxThroughput,
      above: rollup.windows.above,
      ...(seconds ? { loadSeconds: seconds } : {}),
    };
    const summary =
      r.summary && inWindow.length ? { ...r.summary, ...summarize(inWindow, seconds || 1) } : inWindow.length ? null : r.summary;
    out.set(r.id, { rolled, loadStart: new Date(start), summary, seconds });
  }
  return out;
}

/** Loads every group's runs, infra and rollups in a fixed number of queries (not one per group or run), or the stored comparison. */
export async function loadComparison(db: Db, groups: ComparisonGroupInput[], opts: ComparisonOptions = {}): Promise<ComparisonView> {
  const ids = [...new Set(groups.flatMap((g) => g.runIds))];
  const rows = await db.run.findMany({
    where: { id: { in: ids } },
    orderBy: [{ repetition: "asc" }, { createdAt: "asc" }],
    include: {
      target: { select: { name: true, kind: true } },
      workload: { select: { name: true } },
      rollup: { select: { computedAt: true } },
    },
  });
  const runs = rows.map(parseRunJson);
  const window = opts.window ?? null;
  const cacheable = !window && runs.length === ids.length && runs.every((r) => isFinalRunStatus(r.status) && r.rollup);
  const key = cacheable
    ? comparisonCacheKey(
        groups,
        opts,
        // A run's flags that leave it out of verdicts are part of what a stored comparison is found by.
        runs.map((r) => [r.id, r.rollup!.computedAt.getTime(), ...verdictExcludingFlags(flagsOfRun(r)).map((f) => f.code)]),
      )
    : null;
  if (key) {
    const hit = await db.comparisonCacheEntry.findUnique({ where: { key }, select: { view: true } });
    const view = hit ? readStoredJson(comparisonViewSchema, hit.view) : null;
    if (view) return view;
  }

  const infraRows = await db.infraPoint.findMany({ where: { runId: { in: ids } }, orderBy: { ts: "asc" } });
  const grouped = new Set(groups.filter((g) => new Set(g.runIds).size > 1).flatMap((g) => g.runIds));
  const windowed = window ? await windowedRuns(db, runs, window) : null;
  const rolled = windowed ?? (await rolledUpRuns(db, runs, grouped));
  // A zoom: the runs' summaries are those of the window (the tables and the repetitions' verdicts read them).
  if (windowed) for (const r of runs) if (windowed.has(r.id)) r.summary = windowed.get(r.id)!.summary;
  const excluded: VerdictExclusions["excluded"] = [];
  const loaded = groups.map((g, i) => {
    const groupRuns = runs.filter((r) => g.runIds.includes(r.id));
    const perRun: RolledUpRun[] = [];
    // Runs whose measurement is broken (partial, dropped iterations, a saturated generator, ...) are not judged unless asked.
    const flagsOut = new Map(groupRuns.map((r) => [r.id, opts.includeFlagged ? [] : verdictExcludingFlags(flagsOfRun(r))]));
    const judged: RolledUpRun[] = [];
    const infra: ComparisonGroup["infra"] = [];
    for (const run of groupRuns) {
      const r = rolled.get(run.id);
      if (!r) continue;
      perRun.push(r.rolled);
      if (!flagsOut.get(run.id)!.length) judged.push(r.rolled);
      // Every run on a common clock: second 0 = its load start.
      const startSecond = r.loadStart.getTime();
      for (const p of infraRows) {
        const offsetSeconds = Math.round((p.ts.getTime() - startSecond) / 100) / 10;
        if (p.runId === run.id && (!window || (offsetSeconds >= window.fromSeconds && offsetSeconds < window.toSeconds)))
          infra.push({ runId: run.id, offsetSeconds, replicas: p.replicas, cpuPercent: p.cpuPercent });
      }
    }
    const totalSeconds = windowed
      ? groupRuns.reduce((sum, r) => sum + (windowed.get(r.id)?.seconds ?? 0), 0)
      : groupRuns.reduce((sum, r) => sum + (r.summary?.durationSeconds ?? 0), 0);
    const summarized = summarizeRollups(perRun, totalSeconds);
    // A window's series are on its own clock (second 0 = the window's start): back onto the runs' clock.
    if (window) summarized.series = summarized.series.map((b) => ({ ...b, offsetSeconds: b.offsetSeconds + window.fromSeconds }));
    const first = groupRuns[0];
    const group: ComparisonGroup = {
      label: g.label ?? (first ? `${first.target?.name ?? first.name ?? "run"} x ${first.workload?.name ?? "import"}` : `group ${i + 1}`),
      target: first?.target ?? null,
      workload: first?.workload ?? null,
      runs: groupRuns.map((r) => ({ id: r.id, repetition: r.repetition, status: r.status, summary: r.summary, flags: r.flags })),
      ...summarized,
      infra,
    };
    for (const r of groupRuns) {
      const out = flagsOut.get(r.id)!;
      const dropShare = out.find((f) => f.code === "dropped-iterations")?.share;
      if (out.length)
        excluded.push({
          group: group.label,
          runId: r.id,
          flags: out.map((f) => f.code),
          ...(dropShare === undefined ? {} : { dropShare }),
        });
    }
    const judgedSummaries = group.runs.filter((r) => !flagsOut.get(r.id)!.length).map((r) => r.summary);
    // A single run is judged over its own seconds (never several runs' seconds added together).
    const single = judged.length === 1 ? judged[0]! : null;
    return {
      group,
      judgedSummaries,
      windows: single ? single.windows : [],
      quantiles: single?.above ? { whole: single.whole, above: single.above } : undefined,
    };
  });
  const { margin, seed, runToRunCv, pairing, primaryMetric, effect, failureMargin } = opts;
  const view: ComparisonView = {
    groups: loaded.map((l) => l.group),
    verdicts: comparisonVerdicts(
      loaded.map((l) => ({
        label: l.group.label,
        summaries: l.judgedSummaries,
        windows: l.windows,
        ...(l.quantiles ? { quantiles: l.quantiles } : {}),
        workload: l.group.workload?.name ?? null,
      })),
      {
        ...(margin === undefined ? {} : { margin }),
        ...(seed === undefined ? {} : { seed }),
        ...(runToRunCv === undefined ? {} : { runToRunCv }),
        ...(pairing === undefined ? {} : { pairing }),
        ...(primaryMetric === undefined ? {} : { primaryMetric }),
        ...(effect === undefined ? {} : { effect }),
        ...(failureMargin === undefined ? {} : { failureMargin }),
      },
    ),
    verdictVersion: VERDICT_VERSION,
    verdictExclusions: { includeFlagged: opts.includeFlagged ?? false, excluded },
  };
  if (key && runs[0])
    await keepComparison(db, { key, workspaceId: runs[0].workspaceId, runIds: ids, view: jsonInput(comparisonViewSchema, view) });
  return view;
}
