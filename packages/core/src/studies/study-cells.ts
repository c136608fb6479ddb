// A study's cells (studies.cells): one per target x workload, targets outer and
// workloads inner, as the study input lists them; and the planned run order
// (studies.planned_order): cell indices, a round after another.
import { z } from "zod";
import {
  type MetricCatalog,
  type QuantityDomain,
  type RunMetric,
  STUDY_SHOWN_METRICS,
  type StudyMetricField,
} from "../metrics/metric-catalog";
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

/**
 * What a cell shows that is not a compared metric: the run's goodput and failures (study 000's counts), by their
 * field in the study API. Goodput is the catalog's failure share the other way round, kept in the words the studies use.
 */
const STUDY_RUN_FIGURES = {
  goodput: { label: "goodput", unit: "%", decimals: 2, domain: "share", ofRun: (s: RunSummary) => s.goodput },
  failures: { label: "failures", unit: "", decimals: 0, domain: "positive", ofRun: (s: RunSummary) => s.failures },
} as const;

/** A figure whose spread across repetitions a cell shows: its study API field, its name, unit and decimals, its value of a run. */
export interface StudyCellFigure<K extends string = StudyMetric> {
  key: K;
  label: string;
  unit: string;
  decimals: number;
  /** Where its values live: its interval across repetitions stays there (the catalog's domain; "real" when it has none). */
  domain: QuantityDomain;
  ofRun: (s: RunSummary) => number;
}

/** The fields of a cell's figures: the catalog's metrics studies show (their studyField), then the run's own. */
export type StudyMetric = StudyMetricField | keyof typeof STUDY_RUN_FIGURES;

/** A catalog metric as a cell figure: named by its key (req/s, p50, ...), in its unit and decimals. */
const cellFigure = <K extends string>(m: RunMetric & { studyField: K }): StudyCellFigure<K> => ({
  key: m.studyField,
  label: m.key,
  unit: m.unit,
  decimals: m.decimals,
  domain: m.domain ?? "real",
  ofRun: m.ofRun,
});
const RUN_FIGURES = Object.entries(STUDY_RUN_FIGURES).map(([key, f]) => ({ key: key as keyof typeof STUDY_RUN_FIGURES, ...f }));

/** The figures a cell shows, in order: the built-in catalog's metrics studies show, then goodput and failures. */
export const STUDY_CELL_FIGURES: readonly StudyCellFigure[] = [...STUDY_SHOWN_METRICS.map(cellFigure), ...RUN_FIGURES];

/** The same of another catalog (a test's, extended): its metrics with a studyField, then goodput and failures. */
export const studyCellFigures = (catalog: MetricCatalog): StudyCellFigure<string>[] => [
  ...catalog.flatMap((m) => (m.studyField === undefined ? [] : [cellFigure({ ...m, studyField: m.studyField })])),
  ...RUN_FIGURES,
];

/** The metrics whose spread across repetitions a cell shows (the study API's `stats` and `result` fields). */
export const STUDY_METRICS: readonly StudyMetric[] = STUDY_CELL_FIGURES.map((f) => f.key);

/** A run's own figures in a study, once it has succeeded and been analysed: its requests and each cell figure. */
export type StudyRunResult<K extends string = StudyMetric> = { requests: number } & Record<K, number>;

export function studyRunResult(run: { status: string; summary: RunSummary | null }): StudyRunResult | null;
export function studyRunResult<K extends string>(
  run: { status: string; summary: RunSummary | null },
  figures: readonly StudyCellFigure<K>[],
): StudyRunResult<K> | null;
export function studyRunResult(
  run: { status: string; summary: RunSummary | null },
  figures: readonly StudyCellFigure<string>[] = STUDY_CELL_FIGURES,
): StudyRunResult<string> | null {
  const s = run.summary;
  if (!s || run.status !== "SUCCEEDED") return null;
  // As the catalog reads them: successful responses' latency (all responses' in summaries made before they were kept apart).
  return { requests: s.requests, ...Object.fromEntries(figures.map((f) => [f.key, f.ofRun(s)])) };
}

/** Each metric's mean, SD and interval over a cell's succeeded runs (SD needs two of them; the rule of the interval: domain-interval.ts). */
export function cellStats(results: readonly StudyRunResult[]): Record<StudyMetric, SampleStats>;
export function cellStats<K extends string>(
  results: readonly StudyRunResult<K>[],
  figures: readonly StudyCellFigure<K>[],
): Record<K, SampleStats>;
export function cellStats(
  results: readonly StudyRunResult<string>[],
  figures: readonly StudyCellFigure<string>[] = STUDY_CELL_FIGURES,
): Record<string, SampleStats> {
  return Object.fromEntries(
    figures.map((f) => [
      f.key,
      describeSample(
        results.map((r) => r[f.key]).filter((v) => v !== undefined),
        f.domain,
      ),
    ]),
  );
}

/** A figure as a report writes it: "512.3 req/s" when its name is its unit, else "p95 12.35 ms", "failures 0". */
export function studyFigureText(f: Pick<StudyCellFigure<string>, "label" | "unit" | "decimals">, value: number): string {
  const v = value.toFixed(f.decimals);
  if (f.unit === f.label) return `${v} ${f.unit}`;
  return f.unit ? `${f.label} ${v} ${f.unit}` : `${f.label} ${v}`;
}

/** A cell's flags: once the study is final, too few of its repetitions succeeded to say much about the spread. */
export const cellFlags = (succeeded: number, studyFinal: boolean): ValidityFlag[] => (studyFinal ? repetitionFlags(succeeded) : []);
