// The studies' own tables, made from stored runs instead of transcribed: the IoT
// study's (000) Tables 5.x, overall request counts (failed, total, goodput) and
// durations (avg, min, med, max, p90, p95) per deployment x workload, its Table 5.45
// (cost per 1,000 requests, workloads x deployments), study 001's Table 4.3 (success
// ratio, the 2xx share) next to k6's expected_response ratio, and the throughput
// definitions (study 004's maximum and stable throughput, study 002's weighted qps).
// Every figure is a mean over a cell's succeeded repetitions with its interval inside the
// figure's domain (describeSample, domain-interval.ts), never a single run or a transcription.
import { METRIC_CATALOG, type MetricCatalog, type QuantityDomain } from "../metrics/metric-catalog";
import type { RunSummary } from "../runs/run-summary";
import { describeSample, type SampleStats } from "./repetition-stats";
import { stableThroughput, STUDY_METRIC_DEFINITIONS, type StudyMetricId, throughputPerVcpu, weightedQps } from "./study-definitions";

/** One succeeded repetition as the tables need it. */
export interface StudyTableRun {
  runId: string;
  summary: RunSummary;
  /** Study 004's maximum throughput of this run (of the chosen request name), req/s; null when it had no such requests. */
  maxThroughputRps: number | null;
  /** Mean CPU of the target over the load window, % of one core per replica (study 002's CPU%); null without a CPU series. */
  cpuPercent: number | null;
  /** Study 002's scaling duration and the replicas it scaled to; null without a replica timeline. */
  scaling?: { seconds: number; maxReplicas: number } | null;
  /** Mean vCPUs of the target over the load window (replicas x vCPUs per replica); null when the spec does not say. */
  meanVcpus?: number | null;
}

export interface StudyTableCellInput {
  target: string;
  workload: string;
  runs: readonly StudyTableRun[];
}

/** A figure a table can show: a value per run, written with `decimals`. */
export interface StudyTableFigure {
  label: string;
  unit: string;
  decimals: number;
  /** Where its values live: its interval stays there (domain-interval.ts). */
  domain: QuantityDomain;
  of: (r: StudyTableRun) => number | null;
  /** The study definition it follows (shown under the tables), if a study defined it. */
  definition?: StudyMetricId;
}

/**
 * The figures only the studies' tables show (the studies' own definitions), each a value per run; the compared
 * metrics a table shows come from the catalog (its entries' studyTables), see studyTableFigures.
 */
const STUDY_ONLY_FIGURES = {
  failed: { label: "Failed", unit: "", decimals: 0, domain: "positive", of: (r: StudyTableRun) => r.summary.failures },
  total: { label: "Total", unit: "", decimals: 0, domain: "positive", of: (r: StudyTableRun) => r.summary.requests },
  goodput: {
    label: "Goodput",
    unit: "%",
    decimals: 2,
    domain: "share",
    definition: "goodput",
    of: (r: StudyTableRun) => r.summary.goodput,
  },
  avg: { label: "AVG", unit: "ms", decimals: 2, domain: "positive", of: (r: StudyTableRun) => r.summary.latencyMs.avg },
  min: { label: "MIN", unit: "ms", decimals: 2, domain: "positive", of: (r: StudyTableRun) => r.summary.latencyMs.min },
  med: { label: "MED", unit: "ms", decimals: 2, domain: "positive", of: (r: StudyTableRun) => r.summary.latencyMs.p50 },
  max: { label: "MAX", unit: "ms", decimals: 2, domain: "positive", of: (r: StudyTableRun) => r.summary.latencyMs.max },
  p90: { label: "p(90)", unit: "ms", decimals: 2, domain: "positive", of: (r: StudyTableRun) => r.summary.latencyMs.p90 },
  costPerThousand: {
    // Successful requests: a target answering fast failures is not made cheaper by them (the IoT study's Table 5.45
    // counted every request; its runs had next to no failures).
    label: "Cost per 1,000 successful requests",
    unit: "cost",
    decimals: 4,
    domain: "positive",
    of: (r: StudyTableRun) => r.summary.cost?.perThousandSuccessfulRequests ?? null,
  },
  successRatio: {
    label: "Success ratio (2xx)",
    unit: "%",
    decimals: 2,
    domain: "share",
    definition: "success-ratio",
    of: (r: StudyTableRun) => r.summary.successRatio,
  },
  expectedResponseRatio: {
    label: "k6 expected_response ratio",
    unit: "%",
    decimals: 2,
    domain: "share",
    definition: "expected-response-ratio",
    of: (r: StudyTableRun) =>
      r.summary.expectedResponseRatio ??
      (r.summary.requests > 0 ? (100 * (r.summary.requests - r.summary.failures)) / r.summary.requests : null),
  },
  maxThroughput: {
    label: "Max throughput",
    unit: "req/s",
    decimals: 2,
    domain: "positive",
    definition: "max-throughput",
    of: (r: StudyTableRun) => r.maxThroughputRps,
  },
  stableThroughput: {
    label: "Stable throughput (80% of max)",
    unit: "req/s",
    decimals: 2,
    domain: "positive",
    definition: "stable-throughput",
    of: (r: StudyTableRun) => (r.maxThroughputRps === null ? null : stableThroughput(r.maxThroughputRps)),
  },
  cpuPercent: { label: "CPU", unit: "%", decimals: 2, domain: "positive", of: (r: StudyTableRun) => r.cpuPercent },
  weightedQps: {
    label: "Weighted qps",
    unit: "req/s per CPU%",
    decimals: 3,
    domain: "positive",
    definition: "weighted-qps",
    of: (r: StudyTableRun) => weightedQps(r.summary.rps, r.cpuPercent),
  },
  scalingSeconds: {
    label: "Scaling duration",
    unit: "s",
    decimals: 2,
    domain: "positive",
    definition: "scaling-duration",
    of: (r: StudyTableRun) => r.scaling?.seconds ?? null,
  },
  maxReplicas: {
    label: "Replicas reached",
    unit: "",
    decimals: 2,
    domain: "positive",
    of: (r: StudyTableRun) => r.scaling?.maxReplicas ?? null,
  },
  meanVcpus: { label: "Mean vCPUs", unit: "vCPU", decimals: 2, domain: "positive", of: (r: StudyTableRun) => r.meanVcpus ?? null },
  rpsPerVcpu: {
    label: "Throughput per vCPU",
    unit: "req/s per vCPU",
    decimals: 2,
    domain: "positive",
    definition: "throughput-per-vcpu",
    of: (r: StudyTableRun) => throughputPerVcpu(r.summary.rps, r.meanVcpus ?? null),
  },
} satisfies Record<string, StudyTableFigure>;

/** A figure's key: one of the studies' own, or a catalog metric's column (rps, p95, ...). */
export type StudyTableMetric = string;

/** Every figure the tables can show: the studies' own and the catalog metrics' columns (a catalog column of a key already used is refused). */
export function studyTableFigures(catalog: MetricCatalog = METRIC_CATALOG): Record<StudyTableMetric, StudyTableFigure> {
  const figures: Record<string, StudyTableFigure> = { ...STUDY_ONLY_FIGURES };
  const owner = new Map<string, string>();
  for (const m of catalog)
    for (const c of m.studyTables) {
      // One metric may show in several tables under one column; two figures may not share a column.
      if (c.column in STUDY_ONLY_FIGURES || (owner.get(c.column) ?? m.key) !== m.key)
        throw new Error(`study table figure "${c.column}" is declared twice`);
      owner.set(c.column, m.key);
      figures[c.column] = {
        label: c.heading,
        unit: m.unit,
        decimals: m.decimals,
        domain: m.domain ?? "real",
        of: (r: StudyTableRun) => m.ofRun(r.summary),
      };
    }
  return figures;
}

/** The built-in catalog's figures. */
export const STUDY_TABLE_METRICS = studyTableFigures();

/**
 * The tables, as the studies laid them out: "rows" tables have a row per target x
 * workload (the IoT study printed one such table per workload, a row per deployment);
 * "by-target" tables have a row per workload and the targets side by side (Table 5.45);
 * "by-workload" tables a row per target and the workloads side by side (Table 4.3).
 */
export const STUDY_TABLES = {
  "request-counts": {
    title: "Overall request counts",
    source: "study 000, Tables 5.1, 5.3, ... (one per endpoint x workload)",
    layout: "rows",
    metrics: ["failed", "total", "goodput"],
  },
  "request-durations": {
    title: "Overall request durations",
    source: "study 000, Tables 5.2, 5.4, ...",
    layout: "rows",
    metrics: ["avg", "min", "med", "max", "p90", "p95"],
  },
  cost: {
    title: "Cost per 1,000 successful requests",
    source: "study 000, Table 5.45",
    layout: "by-target",
    metrics: ["costPerThousand"],
  },
  "success-ratio": {
    title: "Success ratio (2xx share) and k6's expected_response ratio, in %",
    source: "study 001, Table 4.3",
    layout: "by-workload",
    metrics: ["successRatio", "expectedResponseRatio"],
  },
  throughput: {
    title: "Throughput by the studies' definitions",
    source: "study 004 (maximum, stable), study 002 (weighted qps)",
    layout: "rows",
    metrics: ["rps", "maxThroughput", "stableThroughput", "cpuPercent", "weightedQps"],
  },
  scaling: {
    title: "Scaling and throughput per vCPU",
    source: "study 002 (scaling duration), study 004 (throughput per vCPU)",
    layout: "rows",
    metrics: ["rps", "scalingSeconds", "maxReplicas", "meanVcpus", "rpsPerVcpu"],
  },
} as const satisfies Record<
  string,
  { title: string; source: string; layout: "rows" | "by-target" | "by-workload"; metrics: StudyTableMetric[] }
>;
export type StudyTableId = keyof typeof STUDY_TABLES;

/**
 * A table's figures, in order: the ones its layout lists (the studies' order), then the catalog's metrics that name
 * this table and are not listed. A listed figure nothing declares is an error (a typo would be an empty column).
 */
export function studyTableColumns(id: StudyTableId, catalog: MetricCatalog = METRIC_CATALOG): StudyTableMetric[] {
  const figures = studyTableFigures(catalog);
  const listed: readonly StudyTableMetric[] = STUDY_TABLES[id].metrics;
  const unknown = listed.filter((m) => !(m in figures));
  if (unknown.length) throw new Error(`study table "${id}" lists figures nothing declares: ${unknown.join(", ")}`);
  const fromCatalog = catalog.flatMap((m) => m.studyTables.filter((c) => c.table === id).map((c) => c.column));
  return [...new Set([...listed, ...fromCatalog])];
}
export const STUDY_TABLE_IDS = ["request-counts", "request-durations", "cost", "success-ratio", "throughput", "scaling"] as const;
// Every table listed once, and nothing else.
true satisfies (typeof STUDY_TABLE_IDS)[number] extends StudyTableId
  ? StudyTableId extends (typeof STUDY_TABLE_IDS)[number]
    ? true
    : false
  : false;

/** The study definitions some figure follows. */
type FollowedDefinition = {
  [K in keyof typeof STUDY_ONLY_FIGURES]: (typeof STUDY_ONLY_FIGURES)[K] extends { definition: infer D } ? D : never;
}[keyof typeof STUDY_ONLY_FIGURES];
// Every study definition is followed by a figure (else the tables would show a definition nothing computes, or the
// page would lose one): a definition without its figure does not compile.
true satisfies StudyMetricId extends FollowedDefinition ? true : false;

/** What each named figure means and which study defined it (shown under the tables): the definitions the figures follow, in their order. */
export const STUDY_TABLE_DEFINITIONS = [
  ...new Set(Object.values(STUDY_ONLY_FIGURES as Record<string, StudyTableFigure>).flatMap((f) => (f.definition ? [f.definition] : []))),
].map((id) => STUDY_METRIC_DEFINITIONS[id]);

export interface StudyTableCell {
  target: string;
  workload: string;
  /** Succeeded repetitions the figures are over. */
  n: number;
  /** The cost's unit ("EUR-cent"), when the runs were priced. */
  costUnit: string | null;
  /** True when some run's price assumed what it did not measure (e.g. no replica data). */
  costEstimated: boolean;
  stats: Record<StudyTableMetric, SampleStats>;
}

/** Each cell's figures: mean, SD and interval (in the figure's domain) over its succeeded runs, per metric (runs without a value are left out of that metric). */
export function studyTableCells(cells: readonly StudyTableCellInput[], catalog: MetricCatalog = METRIC_CATALOG): StudyTableCell[] {
  const figures = Object.entries(studyTableFigures(catalog));
  return cells.map((c) => {
    const stats: Record<StudyTableMetric, SampleStats> = {};
    for (const [key, m] of figures)
      stats[key] = describeSample(
        c.runs.map((r) => m.of(r)).filter((v): v is number => v !== null && Number.isFinite(v)),
        m.domain,
      );
    const costs = c.runs.map((r) => r.summary.cost).filter((x) => x != null);
    return {
      target: c.target,
      workload: c.workload,
      n: c.runs.length,
      costUnit: costs[0]?.unit ?? null,
      costEstimated: costs.some((x) => x.estimated === true),
      stats,
    };
  });
}

/** A plain table of a study table: column names and rows (mean, the interval's ends and its kind, per figure). */
export interface StudyTableRows {
  columns: string[];
  rows: Array<Array<string | number | null>>;
}

/** A figure's four columns: the mean, the low and high the page shows, and how they were made (domain-interval.ts). */
const quadruple = (s: SampleStats | undefined): Array<number | string | null> => [
  s?.mean ?? null,
  s?.interval?.low ?? null,
  s?.interval?.high ?? null,
  s?.interval?.kind ?? null,
];
const ordered = (xs: readonly string[]) => [...new Set(xs)];

/**
 * A table laid out as its study laid it out, each figure as its mean, `_low` and `_high` (the interval the page shows)
 * and `_interval` (its kind: "t-log", "t-logit", "t", "t-clamped" from 3 runs; "min-max" for 2, "value" for 1) (CSV
 * and JSON exports).
 */
export function studyTableRows(
  id: StudyTableId,
  cells: readonly StudyTableCell[],
  catalog: MetricCatalog = METRIC_CATALOG,
): StudyTableRows {
  const t = { layout: STUDY_TABLES[id].layout, metrics: studyTableColumns(id, catalog) };
  const targets = ordered(cells.map((c) => c.target));
  const workloads = ordered(cells.map((c) => c.workload));
  const find = (target: string, workload: string) => cells.find((c) => c.target === target && c.workload === workload);
  const figure = (m: StudyTableMetric, prefix = "") => [
    `${prefix}${m}`,
    `${prefix}${m}_low`,
    `${prefix}${m}_high`,
    `${prefix}${m}_interval`,
  ];
  if (t.layout === "by-target") {
    const units = ordered(cells.map((c) => c.costUnit ?? "").filter(Boolean));
    return {
      columns: ["workload", "unit", ...targets.flatMap((target) => t.metrics.flatMap((m) => figure(m, `${target}:`)))],
      rows: workloads.map((w) => [
        w,
        units.join(" ") || null,
        ...targets.flatMap((target) => t.metrics.flatMap((m) => quadruple(find(target, w)?.stats[m]))),
      ]),
    };
  }
  if (t.layout === "by-workload")
    return {
      columns: ["target", ...workloads.flatMap((w) => t.metrics.flatMap((m) => figure(m, `${w}:`)))],
      rows: targets.map((target) => [target, ...workloads.flatMap((w) => t.metrics.flatMap((m) => quadruple(find(target, w)?.stats[m])))]),
    };
  return {
    columns: ["target", "workload", "n", ...t.metrics.flatMap((m) => figure(m))],
    rows: cells.map((c) => [c.target, c.workload, c.n, ...t.metrics.flatMap((m) => quadruple(c.stats[m]))]),
  };
}
