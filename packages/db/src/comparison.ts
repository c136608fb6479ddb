// Runs or study cells side by side: merged results, series aligned on each run's
// load start, latency distributions, infra timelines, and verdicts with their
// confidence intervals (what is compared and how: core's compare/comparison-samples.ts
// and statistics/verdict-method.ts).
// Callers check workspace access (workspace-scope.ts).
import {
  alignToLoadStart,
  comparisonVerdicts,
  summarizeAligned,
  verdictWindows,
  type MetricVerdict,
  type ResultCell,
  type RunSummary,
  type TimeBucket,
  type ValidityFlag,
} from "@opsbench/core";
import type { Db } from "./client";
import { parseRunJson } from "./run-json";
import { loadResultCellsOfRuns } from "./run-view";

export interface ComparisonGroupInput {
  label?: string;
  runIds: string[];
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
  byRequest: Array<{ name: string; requests: number; p50: number; p95: number; p99: number }>;
}

export interface ComparisonView {
  groups: ComparisonGroup[];
  /** Each group against the first, per metric. */
  verdicts: MetricVerdict[];
}

/** Loads every group's runs, infra and cells in a fixed number of queries (not one per group or run). */
export async function loadComparison(db: Db, groups: ComparisonGroupInput[]): Promise<ComparisonView> {
  const ids = [...new Set(groups.flatMap((g) => g.runIds))];
  const rows = await db.run.findMany({
    where: { id: { in: ids } },
    orderBy: [{ repetition: "asc" }, { createdAt: "asc" }],
    include: { target: { select: { name: true, kind: true } }, workload: { select: { name: true } }, infra: { orderBy: { ts: "asc" } } },
  });
  const runs = rows.map(parseRunJson);
  const cellsOfRun = await loadResultCellsOfRuns(db, ids);

  const loaded = groups.map((g, i) => {
    const groupRuns = runs.filter((r) => g.runIds.includes(r.id));
    const alignedRuns: ResultCell[][] = [];
    const infra: ComparisonGroup["infra"] = [];
    for (const run of groupRuns) {
      const cells = cellsOfRun.get(run.id) ?? [];
      const start = run.loadStartedAt ?? cells[0]?.ts;
      if (!start) continue;
      // Every run on a common clock: second 0 = its load start.
      alignedRuns.push(alignToLoadStart(cells, start));
      const startSecond = Math.floor(start.getTime() / 1000) * 1000;
      for (const p of run.infra)
        infra.push({
          runId: run.id,
          offsetSeconds: Math.round((p.ts.getTime() - startSecond) / 100) / 10,
          replicas: p.replicas,
          cpuPercent: p.cpuPercent,
        });
    }
    const totalSeconds = groupRuns.reduce((sum, r) => sum + (r.summary?.durationSeconds ?? 0), 0);
    const first = groupRuns[0];
    const group: ComparisonGroup = {
      label: g.label ?? (first ? `${first.target?.name ?? first.name ?? "run"} x ${first.workload?.name ?? "import"}` : `group ${i + 1}`),
      target: first?.target ?? null,
      workload: first?.workload ?? null,
      runs: groupRuns.map((r) => ({ id: r.id, repetition: r.repetition, status: r.status, summary: r.summary, flags: r.flags })),
      ...summarizeAligned(alignedRuns, totalSeconds),
      infra,
    };
    // A single run is judged over its own seconds (never several runs' seconds added together).
    return { group, windows: alignedRuns.length === 1 ? verdictWindows(alignedRuns[0]!) : [] };
  });
  return {
    groups: loaded.map((l) => l.group),
    verdicts: comparisonVerdicts(
      loaded.map((l) => ({ label: l.group.label, summaries: l.group.runs.map((r) => r.summary), windows: l.windows })),
    ),
  };
}
