// Runs or study cells side by side: merged results, series aligned on each run's
// load start, latency distributions, infra timelines, and verdicts with bootstrap
// confidence intervals. Callers check workspace access (workspace-scope.ts).
import {
  bucketize,
  latencyCdf,
  summarize,
  verdict,
  type ComparedGroup,
  type MetricVerdict,
  type ResultCell,
  type RunSummary,
  type TimeBucket,
} from "@opsbench/core";
import type { Db } from "./client";
import { loadResultCells } from "./run-view";

export interface ComparisonGroupInput {
  label?: string;
  runIds: string[];
}

export interface ComparisonGroup {
  label: string;
  target: { name: string; kind: string } | null;
  workload: { name: string } | null;
  runs: Array<{ id: string; repetition: number; status: string; summary: RunSummary | null; flags: unknown }>;
  /** All runs' seconds merged (histograms added, never percentiles averaged). */
  merged: RunSummary | null;
  /** 10 s buckets from each run's load start, merged across the group's runs. */
  series: TimeBucket[];
  distribution: Array<{ ms: number; cumulative: number }>;
  infra: Array<{ runId: string; offsetSeconds: number; replicas: number; cpuPercent: number | null }>;
  byRequest: Array<{ name: string; requests: number; p50: number; p95: number; p99: number }>;
}

export interface ComparisonView {
  groups: ComparisonGroup[];
  /** Each group against the first, per metric. */
  verdicts: MetricVerdict[];
}

const BUCKET_SECONDS = 10;
const EPOCH = new Date(0);

/** The metrics verdicts are given for, and which way is better. */
/** Time windows for verdicts on single runs: one second each, so even a short run gives a spread. */
const WINDOW_SECONDS = 1;

const METRICS: Array<{
  key: string;
  unit: string;
  lowerIsBetter: boolean;
  ofRun: (s: RunSummary) => number;
  ofWindow: (b: TimeBucket) => number | null;
}> = [
  { key: "p50", unit: "ms", lowerIsBetter: true, ofRun: (s) => s.latencyMs.p50, ofWindow: (b) => b.p50Ms },
  { key: "p95", unit: "ms", lowerIsBetter: true, ofRun: (s) => s.latencyMs.p95, ofWindow: (b) => b.p95Ms },
  { key: "p99", unit: "ms", lowerIsBetter: true, ofRun: (s) => s.latencyMs.p99, ofWindow: (b) => b.p99Ms },
  { key: "req/s", unit: "req/s", lowerIsBetter: false, ofRun: (s) => s.rps, ofWindow: (b) => b.requests / WINDOW_SECONDS },
  { key: "goodput", unit: "%", lowerIsBetter: false, ofRun: (s) => s.goodput, ofWindow: (b) => b.goodput },
];

export async function loadComparison(db: Db, groups: ComparisonGroupInput[]): Promise<ComparisonView> {
  const loaded: ComparisonGroup[] = [];
  const windows: TimeBucket[][] = [];
  for (const [i, g] of groups.entries()) {
    const runs = await db.run.findMany({
      where: { id: { in: g.runIds } },
      orderBy: { repetition: "asc" },
      include: { target: { select: { name: true, kind: true } }, workload: { select: { name: true } }, infra: { orderBy: { ts: "asc" } } },
    });
    const aligned: ResultCell[] = [];
    const infra: ComparisonGroup["infra"] = [];
    for (const run of runs) {
      const cells = await loadResultCells(db, run.id);
      const start = run.loadStartedAt ?? cells[0]?.ts;
      if (!start) continue;
      const startSecond = Math.floor(start.getTime() / 1000) * 1000;
      // Shift every run onto a common clock: second 0 = its load start.
      for (const c of cells) aligned.push({ ...c, ts: new Date(c.ts.getTime() - startSecond) });
      for (const p of run.infra)
        infra.push({
          runId: run.id,
          offsetSeconds: Math.round((p.ts.getTime() - startSecond) / 100) / 10,
          replicas: p.replicas,
          cpuPercent: p.cpuPercent,
        });
    }
    const perRunSummaries = runs.map((r) => r.summary as unknown as RunSummary | null);
    const totalSeconds = perRunSummaries.reduce((sum, s) => sum + (s?.durationSeconds ?? 0), 0);
    const names = [...new Set(aligned.map((c) => c.name))].sort();
    const first = runs[0];
    // Whole seconds inside the load only (the first and last may be partial).
    windows.push(
      aligned.length
        ? bucketize(aligned, EPOCH, WINDOW_SECONDS)
            .slice(1, -1)
            .filter((b) => b.requests > 0)
        : [],
    );
    loaded.push({
      label: g.label ?? (first ? `${first.target?.name ?? first.name ?? "run"} x ${first.workload?.name ?? "import"}` : `group ${i + 1}`),
      target: first?.target ?? null,
      workload: first?.workload ?? null,
      runs: runs.map((r, n) => ({
        id: r.id,
        repetition: r.repetition,
        status: r.status,
        summary: perRunSummaries[n] ?? null,
        flags: (r as { flags?: unknown }).flags ?? [],
      })),
      merged: aligned.length ? summarize(aligned, totalSeconds || 1) : null,
      series: aligned.length ? bucketize(aligned, EPOCH, BUCKET_SECONDS) : [],
      distribution: latencyCdf(aligned),
      infra,
      byRequest: names.map((name) => {
        const s = summarize(
          aligned.filter((c) => c.name === name),
          totalSeconds || 1,
        );
        return { name, requests: s.requests, p50: s.latencyMs.p50, p95: s.latencyMs.p95, p99: s.latencyMs.p99 };
      }),
    });
  }
  return { groups: loaded, verdicts: verdicts(loaded, windows) };
}

/** Values of a metric per repetition, or per 1 s window of the load when a group has a single run. */
function samplesOf(g: ComparisonGroup, windows: TimeBucket[], m: (typeof METRICS)[number]): ComparedGroup {
  const done = g.runs.filter((r) => r.summary);
  if (done.length >= 2) return { label: g.label, values: done.map((r) => m.ofRun(r.summary!)), basis: "repetitions" };
  const values = windows.map(m.ofWindow).filter((v): v is number => v !== null);
  return { label: g.label, values, basis: "time-windows" };
}

function verdicts(groups: ComparisonGroup[], windows: TimeBucket[][]): MetricVerdict[] {
  const [baseline, ...others] = groups;
  if (!baseline) return [];
  const out: MetricVerdict[] = [];
  for (const [i, other] of others.entries()) {
    for (const m of METRICS) {
      const a = samplesOf(baseline, windows[0]!, m);
      const b = samplesOf(other, windows[i + 1]!, m);
      // One sample a side has no spread to resample: no verdict rather than a zero-width "significant" one.
      if (a.values.length >= 2 && b.values.length >= 2) out.push(verdict(m.key, a, b, { lowerIsBetter: m.lowerIsBetter, unit: m.unit }));
    }
  }
  return out;
}
