// The compared metrics, declared once: what a verdict is given on, what a box plot and the export show per run,
// what the CI gate's `--fail-on` names, which study tables show it. Every reader (compare/, the gate, study cells
// and tables, the web's box plots and export, the CLI's reports) takes its list from here, so a new run-level
// metric is one entry (docs/architecture.md, "A new metric").
import type { TimeBucket } from "../runs/latency-summary";
import { successFirstLatency, type RunSummary } from "../runs/run-summary";

/**
 * The percentiles a run's rollup stores per second (the requests above its whole-run value, rollup `above`) and a
 * single run's percentile verdicts resample. A new one here is stored by rollups made from then on.
 */
export const STORED_QUANTILES = { p50: 0.5, p95: 0.95, p99: 0.99 } as const;
export type StoredQuantileKey = keyof typeof STORED_QUANTILES;
export const STORED_QUANTILE_KEYS = Object.keys(STORED_QUANTILES) as StoredQuantileKey[];

/** The stored quantiles of a latency summary (its p50, p95, ... fields), nothing else. */
export const storedQuantilesOf = (latency: Readonly<Record<StoredQuantileKey, number>>): Record<StoredQuantileKey, number> =>
  Object.fromEntries(STORED_QUANTILE_KEYS.map((q) => [q, latency[q]])) as Record<StoredQuantileKey, number>;

/** A single run is judged over windows of this many seconds (its per-second series). */
export const VERDICT_WINDOW_SECONDS = 1;

/**
 * The failure share's default margin: the failure odds may rise or fall by half (0.5) and still count as the same. It
 * is relative, on the log-odds scale, because a share near 0 changes by ratios: 0.1% -> 1% failures is ten times as
 * many (an SLO of 99.9% broken), which a margin of 1 point called "equivalent". Users set it (the SLO margin).
 */
export const DEFAULT_FAILURE_MARGIN = 0.5;

/** The metric a comparison or study judges unless the user picks another: p95 of successful responses. */
export const DEFAULT_PRIMARY_METRIC = "p95";

/**
 * How a single run's per-second series is judged: a whole-run percentile (resampling the requests above it), a
 * share (failures over requests, linearised), a rate or any other per-second mean, or not at all (run-level values
 * only: judged between repetitions).
 */
export type RunMetricKind = "quantile" | "share" | "rate" | "run-level";

/**
 * Where a quantity's values live, so its interval across repetitions stays there (statistics/domain-interval.ts):
 * "positive" (latency, req/s, counts, durations, cost: >= 0, an interval on the log scale), "share" (a percentage in
 * [0, 100], an interval on the logit scale), "real" (anything, the plain t-interval).
 */
export type QuantityDomain = "positive" | "share" | "real";

/** A name the gate's `--fail-on` accepts; `negated`: the rule reads the verdict with its sign turned (goodput = -failure share). */
export interface GateAlias {
  alias: string;
  negated?: true;
}

/** Where a study table shows the metric: its column key (CSV column, data-metric) and heading, in the study's own words. */
export interface StudyTableColumn {
  table: string;
  column: string;
  heading: string;
}

export interface RunMetric {
  /** Its one name: the verdict's metric, the box plot's panel, the export's `metric` column. */
  key: string;
  /** Its name in a sentence or a heading ("p95 latency"). */
  label: string;
  unit: string;
  /** Decimals it is written with. */
  decimals: number;
  lowerIsBetter: boolean;
  kind: RunMetricKind;
  /** A quantile metric's stored quantile. */
  quantile?: StoredQuantileKey;
  /**
   * "log-odds": a share judged by its odds ratio (the failure share), under the failure margin instead of the
   * comparison's margin; absent: the difference, under the comparison's margin relative to the baseline.
   */
  scale?: "log-odds";
  /** Where its values live (its interval across repetitions stays there); absent: "real". */
  domain?: QuantityDomain;
  /** Shown with its interval but never the primary metric, never in the family (all-responses latency: fast failures would win it). */
  descriptiveOnly?: true;
  /** A share's run: its requests (what the share is of), so a run without failures has a finite log-odds. */
  ofRunTotal?: (s: RunSummary) => number;
  /** A run's value, from its summary (percentiles are whole-run percentiles, never means of per-second ones). */
  ofRun: (s: RunSummary) => number;
  /** A single run's per-second value (req/s), or its share / quantile terms; null: no value that second. */
  ofWindow: (b: TimeBucket) => number | null;
  /** The names `--fail-on` accepts for it (none: not gateable). */
  gate: readonly GateAlias[];
  /** The study tables that show it (besides the comparison's verdict table and box plots, which show every metric). */
  studyTables: readonly StudyTableColumn[];
  /**
   * Whether a study's cells show it (mean, SD and 95% CI over the repetitions, and each run's value): the field the
   * study API names it by (a cell's `stats`, a run's `result`), a name clients keep. Absent: the cells do not show it.
   */
  studyField?: string;
}

/**
 * Latency is judged on successful responses first (a target answering fast errors must not look faster); all
 * responses' latency is descriptive only. Throughput counts successful (2xx) responses only, so instant 503s add
 * nothing. Goodput is judged as the failure share (100 - goodput) on the log-odds scale, under the failure margin.
 */
const BUILT_IN_METRICS = [
  {
    key: "p50",
    label: "p50 latency",
    unit: "ms",
    decimals: 2,
    lowerIsBetter: true,
    kind: "quantile",
    domain: "positive",
    quantile: "p50",
    ofRun: (s) => successFirstLatency(s).p50,
    ofWindow: (b) => b.p50Ms,
    gate: [{ alias: "p50" }],
    studyTables: [],
    studyField: "p50",
  },
  {
    key: "p95",
    label: "p95 latency",
    unit: "ms",
    decimals: 2,
    lowerIsBetter: true,
    kind: "quantile",
    domain: "positive",
    quantile: "p95",
    ofRun: (s) => successFirstLatency(s).p95,
    ofWindow: (b) => b.p95Ms,
    gate: [{ alias: "p95" }],
    studyTables: [],
    studyField: "p95",
  },
  {
    key: "p99",
    label: "p99 latency",
    unit: "ms",
    decimals: 2,
    lowerIsBetter: true,
    kind: "quantile",
    domain: "positive",
    quantile: "p99",
    ofRun: (s) => successFirstLatency(s).p99,
    ofWindow: (b) => b.p99Ms,
    gate: [{ alias: "p99" }],
    studyTables: [],
    studyField: "p99",
  },
  {
    key: "req/s",
    label: "successful throughput",
    unit: "req/s",
    decimals: 1,
    lowerIsBetter: false,
    kind: "rate",
    domain: "positive",
    ofRun: (s) => (s.rps * s.goodput) / 100,
    ofWindow: (b) => (b.requests * (b.goodput ?? 0)) / 100 / VERDICT_WINDOW_SECONDS,
    gate: [{ alias: "rps" }, { alias: "req/s" }],
    studyTables: [
      { table: "throughput", column: "rps", heading: "successful req/s" },
      { table: "scaling", column: "rps", heading: "successful req/s" },
    ],
    studyField: "rps",
  },
  {
    key: "failure share",
    label: "failure share",
    unit: "%",
    decimals: 2,
    lowerIsBetter: true,
    kind: "share",
    domain: "share",
    scale: "log-odds",
    ofRun: (s) => (s.requests > 0 ? 100 - s.goodput : 0),
    ofRunTotal: (s) => s.requests,
    ofWindow: (b) => (b.goodput === null ? null : 100 - b.goodput),
    gate: [{ alias: "goodput", negated: true }, { alias: "failures" }],
    studyTables: [],
  },
  {
    key: "p95 (all responses)",
    label: "p95 latency, all responses",
    unit: "ms",
    decimals: 2,
    lowerIsBetter: true,
    kind: "run-level",
    domain: "positive",
    descriptiveOnly: true,
    ofRun: (s) => s.latencyMs.p95,
    ofWindow: () => null,
    gate: [],
    // The IoT study's p(95) is over all responses.
    studyTables: [{ table: "request-durations", column: "p95", heading: "p(95)" }],
  },
  {
    key: "p99 (all responses)",
    label: "p99 latency, all responses",
    unit: "ms",
    decimals: 2,
    lowerIsBetter: true,
    kind: "run-level",
    domain: "positive",
    descriptiveOnly: true,
    ofRun: (s) => s.latencyMs.p99,
    ofWindow: () => null,
    gate: [],
    studyTables: [],
  },
] as const satisfies readonly RunMetric[];

/** The compared metrics (the built-in catalog). */
export const METRIC_CATALOG: readonly RunMetric[] = BUILT_IN_METRICS;

/**
 * The study API's field of each built-in metric studies show, as a type (the API's cell `stats` and run `result`
 * are typed by it). `as const` above keeps the fields' names; a catalog extended in a test types its own.
 */
export type StudyMetricField = Extract<(typeof BUILT_IN_METRICS)[number], { studyField: string }>["studyField"];

/** The built-in metrics studies show, in catalog order, each with its field typed. */
export const STUDY_SHOWN_METRICS: ReadonlyArray<RunMetric & { studyField: StudyMetricField }> = BUILT_IN_METRICS.flatMap((m) =>
  "studyField" in m ? [m] : [],
);

/** The catalog a reader is given: the built-in one, or (tests) one extended by extendMetricCatalog. */
export type MetricCatalog = readonly RunMetric[];

/** The built-in catalog with more metrics after it; a key already there is refused (one metric, one name). */
export function extendMetricCatalog(...more: readonly RunMetric[]): MetricCatalog {
  const catalog: RunMetric[] = [...METRIC_CATALOG];
  for (const m of more) {
    if (catalog.some((c) => c.key === m.key)) throw new Error(`metric "${m.key}" is already in the catalog`);
    catalog.push(m);
  }
  return catalog;
}

/** A metric of the catalog by its key (a stored verdict names its metric by it). */
export const metricOf = (key: string, catalog: MetricCatalog = METRIC_CATALOG): RunMetric | undefined => catalog.find((m) => m.key === key);
