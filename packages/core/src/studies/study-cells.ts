// A study's cells (studies.cells): one per target x workload, targets outer and
// workloads inner, as the study input lists them; and the planned run order
// (studies.planned_order): cell indices, a round after another.
import { z } from "zod";
import { metricOf } from "../metrics/metric-catalog";
import type { RunSummary } from "../runs/run-summary";
import { describeSample, type SampleStats } from "../statistics/repetition-stats";
import { repetitionFlags, type ValidityFlag } from "../runs/validity-flags";

export const studyCellSchema = z.object({
  targetId: z.string(),
  /** The target's name when the study was made. */
  target: z.string(),
  workloadId: z.string(),
  workload: z.string(),
  /** With study factors: the target the variant was made from, and its level (replicas, nodes). */
  baseTarget: z.string().optional(),
  level: z.object({ replicas: z.number().int().optional(), nodes: z.number().int().optional() }).optional(),
});
export type StudyCell = z.infer<typeof studyCellSchema>;
export const studyCellsSchema = z.array(studyCellSchema);

export const plannedOrderSchema = z.array(z.number().int().min(0));

/** Studies made before cells were recorded (single-cell ones) derive them from their runs, in run order. */
export function cellsFromRuns(
  runs: ReadonlyArray<{
    targetId: string | null;
    workloadId: string | null;
    target: { name: string } | null;
    workload: { name: string } | null;
  }>,
): StudyCell[] {
  const seen = new Map<string, StudyCell>();
  for (const r of runs) {
    const key = `${r.targetId}/${r.workloadId}`;
    if (!seen.has(key))
      seen.set(key, {
        targetId: r.targetId ?? "",
        target: r.target?.name ?? "?",
        workloadId: r.workloadId ?? "",
        workload: r.workload?.name ?? "?",
      });
  }
  return [...seen.values()];
}

/** The index of the cell a run belongs to, or -1. */
export const cellIndexOf = (cells: readonly StudyCell[], run: { targetId: string | null; workloadId: string | null }) =>
  cells.findIndex((c) => c.targetId === (run.targetId ?? "") && c.workloadId === (run.workloadId ?? ""));

/** The catalog metrics a cell shows, by the field the study API names them with (packages/api's study cell stats). */
export const STUDY_CELL_CATALOG_METRICS = { rps: "req/s", p50: "p50", p95: "p95", p99: "p99" } as const;
/** The metrics whose spread across repetitions a cell shows: those catalog metrics, then the run's goodput and failures (study 000's counts). */
export const STUDY_METRICS = [
  ...(Object.keys(STUDY_CELL_CATALOG_METRICS) as Array<keyof typeof STUDY_CELL_CATALOG_METRICS>),
  "goodput",
  "failures",
] as const;
export type StudyMetric = (typeof STUDY_METRICS)[number];

const catalogValue = (key: string, s: RunSummary): number => {
  const m = metricOf(key);
  if (!m) throw new Error(`study cells show "${key}", which the metric catalog does not declare`);
  return m.ofRun(s);
};

/** A run's own figures in a study, once it has succeeded and been analysed. */
export type StudyRunResult = { requests: number; failures: number; goodput: number; rps: number; p50: number; p95: number; p99: number };

export function studyRunResult(run: { status: string; summary: RunSummary | null }): StudyRunResult | null {
  const s = run.summary;
  if (!s || run.status !== "SUCCEEDED") return null;
  return {
    requests: s.requests,
    failures: s.failures,
    goodput: s.goodput,
    // As the catalog reads them: successful responses' latency (all responses' in summaries made before they were kept apart).
    rps: catalogValue(STUDY_CELL_CATALOG_METRICS.rps, s),
    p50: catalogValue(STUDY_CELL_CATALOG_METRICS.p50, s),
    p95: catalogValue(STUDY_CELL_CATALOG_METRICS.p95, s),
    p99: catalogValue(STUDY_CELL_CATALOG_METRICS.p99, s),
  };
}

/** Each metric's mean, SD and 95% CI over a cell's succeeded runs (SD and CI need two of them). */
export function cellStats(results: readonly StudyRunResult[]): Record<StudyMetric, SampleStats> {
  const stats = {} as Record<StudyMetric, SampleStats>;
  for (const m of STUDY_METRICS) stats[m] = describeSample(results.map((r) => r[m]));
  return stats;
}

/** A cell's flags: once the study is final, too few of its repetitions succeeded to say much about the spread. */
export const cellFlags = (succeeded: number, studyFinal: boolean): ValidityFlag[] => (studyFinal ? repetitionFlags(succeeded) : []);
