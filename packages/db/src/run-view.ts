import {
  bucketize,
  decodeBuckets,
  summarize,
  summarizeMetrics,
  type CheckSummary,
  type CustomMetricSummary,
  type MetricCell,
  type MetricKind,
  type ResultCell,
  type RunSummary,
  type TimeBucket,
} from "@opsbench/core";
import type { ValidityFlag } from "@opsbench/core";
import type { Db } from "./client";
import type { ResultSecond } from "./generated/prisma/client";
import { parseRunJson } from "./run-json";
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
  error: string | null;
  /** Validity flags (runs.flags): reasons to read the numbers with care. */
  flags: ValidityFlag[];
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
  series: { bucketSeconds: number; points: TimeBucket[] };
  events: Array<{ ts: string; level: string; message: string }>;
  /** k6 checks per check name (passes, fails, 10 s series); empty when the script has none. */
  checks: CheckSummary[];
  /** The script's own k6 metrics (counters, rates, trends, gauges). */
  customMetrics: CustomMetricSummary[];
  /** The target's infra timeline (replicas/instances, CPU, cold starts, queue) on the load's time axis (run-infra.ts). */
  infra: RunInfra;
  /** When the retention sweep removed the raw per-second series (charts are empty; the summary stays); null: all there. */
  seriesPrunedAt: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export async function loadResultCells(db: Db, runId: string, window?: { from: Date; to: Date }): Promise<ResultCell[]> {
  const rows = await db.resultSecond.findMany({
    where: { runId, ...(window ? { ts: { gte: window.from, lt: window.to } } : {}) },
    orderBy: { ts: "asc" },
  });
  return rows.map(toResultCell);
}

/** The cells of several runs in one query, by run id (every id is a key, with [] when it has none). */
export async function loadResultCellsOfRuns(db: Db, runIds: readonly string[]): Promise<Map<string, ResultCell[]>> {
  const byRun = new Map<string, ResultCell[]>(runIds.map((id) => [id, []]));
  if (runIds.length === 0) return byRun;
  const rows = await db.resultSecond.findMany({ where: { runId: { in: [...new Set(runIds)] } }, orderBy: { ts: "asc" } });
  for (const r of rows) byRun.get(r.runId)?.push(toResultCell(r));
  return byRun;
}

const toResultCell = (r: ResultSecond): ResultCell => ({
  ts: r.ts,
  name: r.name,
  class: r.class,
  count: r.requests,
  failures: r.failures,
  sum: r.sumMs,
  min: r.minMs,
  max: r.maxMs,
  buckets: decodeBuckets(r.buckets),
});

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

/** The run as its page and the CLI show it. Callers check workspace access first (workspace-scope.ts). */
export async function loadRunView(db: Db, runId: string): Promise<RunView> {
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
  const cells = await loadResultCells(db, runId);
  // Cells are whole seconds; align the buckets to the second the load started in.
  const loadStart = run.loadStartedAt ?? cells[0]?.ts ?? null;
  const start = loadStart ? new Date(Math.floor(loadStart.getTime() / 1000) * 1000) : null;
  const end = run.loadFinishedAt ?? (cells.length ? new Date(cells[cells.length - 1]!.ts.getTime() + 1000) : null);
  const live = start && end && cells.length ? summarize(cells, (end.getTime() - start.getTime()) / 1000) : null;
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
    error: run.error,
    flags: run.flags,
    steps: run.steps.map((s) => ({
      name: s.name,
      status: s.status,
      startedAt: s.startedAt.toISOString(),
      finishedAt: iso(s.finishedAt),
      durationMs: s.finishedAt ? s.finishedAt.getTime() - s.startedAt.getTime() : null,
      error: s.error,
    })),
    summary: run.summary ?? live,
    series: { bucketSeconds: 10, points: start ? bucketize(cells, start, 10) : [] },
    events: run.events.map((e) => ({ ts: e.ts.toISOString(), level: e.level, message: e.message })),
    ...summarizeMetrics(await loadMetricCells(db, runId), start, start && end ? (end.getTime() - start.getTime()) / 1000 : 0),
    infra: await loadRunInfra(db, runId, start),
    seriesPrunedAt: iso(run.seriesPrunedAt),
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
