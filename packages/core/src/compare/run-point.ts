// One run as a point of a series' trend (docs/trends.md): per metric its whole-run value, as its summary gives it
// (the run page's number), and that value's 95% interval from the run's own per-second series, judged the way a
// verdict of two single runs judges each side (statistics/verdict-intervals.ts runValueInterval). Where no interval
// can be had (a run under 30 s, seconds too dependent, no summary, a cost that is not a fixed price) the interval is
// null and `note` says why: a trend never shows an error bar that was not computed.
import type { ResultCell, TimeBucket } from "../runs/latency-summary";
import type { RunSummary } from "../runs/run-summary";
import { runValueInterval } from "../statistics/verdict-intervals";
import { METRIC_CATALOG, metricOf, type RunMetric } from "../metrics/metric-catalog";
import { comparisonSamples, type RequestsAboveQuantiles } from "./comparison-samples";

/** The latency metrics a trend can draw: the stored quantiles of successful responses (what a verdict judges). */
export const TREND_LATENCY_METRICS = METRIC_CATALOG.filter((m) => m.kind === "quantile").map((m) => m.key);
export const DEFAULT_TREND_LATENCY_METRIC = "p95";

export interface PointValue {
  /** The run's whole-run value; null when the run has none (no summary, no successful response, no cost). */
  value: number | null;
  /** Its 95% interval, or null (then `note` says why). */
  low: number | null;
  high: number | null;
  unit: string;
  note: string | null;
}

export interface RunPointMetrics {
  /** The primary latency metric (p95 unless asked for another stored quantile). */
  latency: PointValue & { metric: string };
  /** Successful (2xx) requests per second. */
  throughput: PointValue;
  /** Failed requests' share, percent. */
  failureShare: PointValue;
  /** Cost per 1,000 successful requests, in the cost model's unit; null value when the run was not priced. */
  costPerThousand: PointValue;
}

/** What a run's stored rollup gives (packages/db run-rollups.ts): its per-second windows, whole-run cells and tail counts. */
export interface RunPointInput {
  summary: RunSummary | null;
  windows: readonly TimeBucket[];
  whole: readonly ResultCell[];
  above: RequestsAboveQuantiles | null;
}

const none = (unit: string, note: string, value: number | null = null): PointValue => ({ value, low: null, high: null, unit, note });

/** The latency metric a trend is asked for, or an error naming the choices. */
export function trendLatencyMetric(key: string | undefined): RunMetric {
  const want = key ?? DEFAULT_TREND_LATENCY_METRIC;
  const m = metricOf(want);
  if (m?.kind !== "quantile")
    throw new RangeError(`metric "${want}" is not a latency metric a trend draws (one of: ${TREND_LATENCY_METRICS.join(", ")})`);
  return m;
}

function metricPoint(input: RunPointInput, m: RunMetric): PointValue {
  const s = input.summary;
  if (!s) return none(m.unit, "the run has no summary (it did not finish its load)");
  if (m.kind === "quantile" && s.successLatencyMs === null)
    return none(m.unit, "no response succeeded: no latency of successful responses");
  const value = m.ofRun(s);
  const group = {
    label: "run",
    summaries: [s],
    windows: input.windows,
    ...(input.above ? { quantiles: { whole: input.whole, above: input.above } } : {}),
  };
  const { sample } = comparisonSamples(group, m);
  if (sample.kind === "runs") return none(m.unit, "no per-second series", value);
  const interval = runValueInterval(sample);
  if (typeof interval === "string") return none(m.unit, interval, value);
  // The value is the summary's (the run page's); the interval is the series'. They agree up to the load window's
  // partial first and last seconds; the point is kept inside its bar.
  return { value, low: Math.min(interval.low, value), high: Math.max(interval.high, value), unit: m.unit, note: null };
}

/**
 * Cost per 1,000 successful requests. Its interval exists only for a fixed price over the load window (a "reserved"
 * model: nodes or instances by the hour): then the cost is the same whatever the requests, and the figure's
 * uncertainty is the successful throughput's, inverted. A pay-per-use price moves with the requests themselves, so
 * that interval is not derived here (null, said).
 */
function costPoint(s: RunSummary | null, throughput: PointValue): PointValue {
  const cost = s?.cost;
  if (!s || !cost) return none("", "the run was not priced (its target has no cost model)");
  const value = cost.perThousandSuccessfulRequests;
  if (value === null) return none(cost.unit, "no successful requests to price");
  if (cost.kind !== "reserved")
    return none(cost.unit, `a ${cost.kind} price moves with the requests: no interval is derived for it`, value);
  const rate = throughput.value;
  if (throughput.low === null || throughput.high === null || !rate || !(throughput.low > 0))
    return none(cost.unit, `no interval: the successful throughput has none${throughput.note ? ` (${throughput.note})` : ""}`, value);
  return { value, low: (value * rate) / throughput.high, high: (value * rate) / throughput.low, unit: cost.unit, note: null };
}

/** A run's point: each metric's value and interval (see the file's head). */
export function runPointMetrics(input: RunPointInput, latencyMetric?: string): RunPointMetrics {
  const latency = trendLatencyMetric(latencyMetric);
  const throughput = metricPoint(input, metricOf("req/s")!);
  return {
    latency: { ...metricPoint(input, latency), metric: latency.key },
    throughput,
    failureShare: metricPoint(input, metricOf("failure share")!),
    costPerThousand: costPoint(input.summary, throughput),
  };
}
