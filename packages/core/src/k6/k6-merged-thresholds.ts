// k6 thresholds evaluated on the merged result of several k6 processes. Each k6 of a run fed from elsewhere
// (`opsbench run --external`, a Kubernetes Job of engine pods) judges only its own execution segment; opsbench has every
// generator's per-second histograms and counts, so it judges the script's thresholds on their sum, as one k6
// running the whole test would. The expressions are k6's (`p(95)<500`, `rate<0.01`, `count>10`); what the
// output does not carry (e.g. http_req_waiting, a scenario tag) is reported as not evaluated, and fails.
import { z } from "zod";
import { emptyHistogram, type Histogram, mergeInto, quantile } from "../histograms/histogram";
import type { LoadSecondRow, ResultCell } from "../runs/latency-summary";
import type { MetricCell } from "../runs/metric-summary";
import type { ThresholdOutcome } from "../runs/run-summary";

/** The script's thresholds as k6 read them: metric (with tags, e.g. `http_req_duration{name:home}`) -> expressions. */
export const thresholdSourcesSchema = z.record(z.string(), z.array(z.string()));
export type ThresholdSources = z.infer<typeof thresholdSourcesSchema>;

/** k6's exit code when thresholds failed: a result, not a crash. */
export const K6_THRESHOLDS_FAILED = 99;

export interface MergedResult {
  cells: readonly ResultCell[];
  metrics: readonly MetricCell[];
  load: readonly LoadSecondRow[];
  /** The load window's length, what k6's `rate` of a counter is taken over. */
  durationSeconds: number;
}

export interface MergedThresholdOutcome extends ThresholdOutcome {
  /** Why the threshold could not be evaluated on what the output records (it then counts as failed). */
  unevaluated?: string;
}

type Values = Record<string, number>;

const OPERATORS: Record<string, (a: number, b: number) => boolean> = {
  "<": (a, b) => a < b,
  "<=": (a, b) => a <= b,
  ">": (a, b) => a > b,
  ">=": (a, b) => a >= b,
  "==": (a, b) => a === b,
  "===": (a, b) => a === b,
  "!=": (a, b) => a !== b,
};

function trend(h: Histogram): (agg: string) => number | undefined {
  return (agg) => {
    const p = /^p\((\d+(?:\.\d+)?)\)$/.exec(agg);
    if (p) return quantile(h, Number(p[1]) / 100);
    const fixed: Values = h.count
      ? { avg: h.sum / h.count, min: h.min, max: h.max, med: quantile(h, 0.5) }
      : { avg: 0, min: 0, max: 0, med: 0 };
    return fixed[agg];
  };
}

const counter = (count: number, seconds: number) => (agg: string) =>
  agg === "count" ? count : agg === "rate" ? (seconds > 0 ? count / seconds : 0) : undefined;
const rate = (passes: number, total: number) => (agg: string) => (agg === "rate" ? (total ? passes / total : 0) : undefined);

/** "name{a:b,c:d}" -> its name and tags. */
function parseMetric(key: string): { name: string; tags: Record<string, string> } {
  const m = /^([^{]+)(?:\{(.*)\})?$/.exec(key.trim());
  const tags: Record<string, string> = {};
  for (const pair of (m?.[2] ?? "").split(",").filter((p) => p.trim())) {
    const at = pair.indexOf(":");
    tags[pair.slice(0, at).trim()] = pair
      .slice(at + 1)
      .trim()
      .replace(/^["']|["']$/g, "");
  }
  return { name: (m?.[1] ?? key).trim(), tags };
}

/** The aggregation of a metric the merged result can give: a function of k6's aggregation name, or why not. */
function metricValues(key: string, r: MergedResult): ((agg: string) => number | undefined) | string {
  const { name, tags } = parseMetric(key);
  const tagNames = Object.keys(tags);
  const only = (allowed: string[]) => tagNames.find((t) => !allowed.includes(t));
  const sum = <T>(xs: readonly T[], f: (x: T) => number) => xs.reduce((a, x) => a + f(x), 0);
  if (name.startsWith("http_req")) {
    const extra = only(["name", "expected_response"]);
    if (extra) return `the tag "${extra}" is not recorded per request (only name and expected_response are)`;
    const cells = r.cells.filter(
      (c) =>
        (tags.name === undefined || c.name === tags.name) &&
        (tags.expected_response === undefined || (c.failures === 0) === (tags.expected_response === "true")),
    );
    const count = sum(cells, (c) => c.count);
    if (name === "http_reqs") return counter(count, r.durationSeconds);
    if (name === "http_req_failed")
      return rate(
        sum(cells, (c) => c.failures),
        count,
      );
    if (name === "http_req_duration") {
      const h = emptyHistogram();
      for (const c of cells) mergeInto(h, c);
      return trend(h);
    }
    return `${name} is not recorded by the opsbench output (http_req_duration, http_req_failed and http_reqs are)`;
  }
  if (name === "checks") {
    const extra = only(["check"]);
    if (extra) return `the tag "${extra}" is not recorded for checks (only check is)`;
    const cells = r.metrics.filter((c) => c.kind === "check" && (tags.check === undefined || c.name === tags.check));
    return rate(
      sum(cells, (c) => c.passes),
      sum(cells, (c) => c.count),
    );
  }
  const loadCounters: Record<string, (l: LoadSecondRow) => number> = {
    iterations: (l) => l.iterations,
    dropped_iterations: (l) => l.droppedIterations,
    data_sent: (l) => l.bytesSent,
    data_received: (l) => l.bytesReceived,
  };
  if (tagNames.length) return `the tags of ${name} are not recorded`;
  const loadOf = loadCounters[name];
  if (loadOf) return counter(sum(r.load, loadOf), r.durationSeconds);
  const own = r.metrics.filter((c) => c.kind !== "check" && c.name === name);
  const kind = own[0]?.kind;
  if (!kind) return `${name} has no values in the merged result (a script's own metric, or not recorded by the opsbench output)`;
  if (kind === "counter")
    return counter(
      sum(own, (c) => c.sum),
      r.durationSeconds,
    );
  if (kind === "rate")
    return rate(
      sum(own, (c) => c.passes),
      sum(own, (c) => c.count),
    );
  if (kind === "gauge") {
    const last = own.reduce((a, b) => (b.ts >= a.ts ? b : a));
    const fixed: Values = { value: last.last, min: Math.min(...own.map((c) => c.min)), max: Math.max(...own.map((c) => c.max)) };
    return (agg) => fixed[agg];
  }
  const h = emptyHistogram();
  for (const c of own) mergeInto(h, { count: c.count, sum: c.sum, min: c.min, max: c.max, buckets: c.buckets ?? [] });
  return trend(h);
}

/** Each threshold of the script, judged on the merged result; sorted as k6's summary lists them. */
export function evaluateMergedThresholds(sources: ThresholdSources, result: MergedResult): MergedThresholdOutcome[] {
  const out: MergedThresholdOutcome[] = [];
  for (const [metric, expressions] of Object.entries(sources)) {
    const values = metricValues(metric, result);
    for (const expression of expressions) {
      const m = /^\s*([a-z]+(?:\(\d+(?:\.\d+)?\))?)\s*(<=|>=|===|==|!=|<|>)\s*(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*$/i.exec(expression);
      const value = typeof values === "string" || !m ? undefined : values(m[1]!);
      if (typeof values === "string") out.push({ metric, expression, ok: false, unevaluated: values });
      else if (!m) out.push({ metric, expression, ok: false, unevaluated: "not a threshold expression opsbench reads" });
      else if (value === undefined) out.push({ metric, expression, ok: false, unevaluated: `${m[1]} is not an aggregation of ${metric}` });
      else out.push({ metric, expression, ok: OPERATORS[m[2]!]!(value, Number(m[3])) });
    }
  }
  return out.sort((a, b) => a.metric.localeCompare(b.metric) || a.expression.localeCompare(b.expression));
}

/** The outcomes as k6's --summary-export writes them (`thresholds: { expression: crossed }`), what run views read. */
export function thresholdsAsK6Summary(outcomes: readonly ThresholdOutcome[]): {
  metrics: Record<string, { thresholds: Record<string, boolean> }>;
} {
  const metrics: Record<string, { thresholds: Record<string, boolean> }> = {};
  for (const o of outcomes) {
    metrics[o.metric] ??= { thresholds: {} };
    metrics[o.metric]!.thresholds[o.expression] = !o.ok;
  }
  return { metrics };
}
