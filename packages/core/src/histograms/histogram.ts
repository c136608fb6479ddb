// Mergeable latency histograms: sparse logarithmic buckets (as in DDSketch).
// Bucket i holds values in (gamma^(i-1), gamma^i]; reporting a bucket by
// 2*gamma^i/(gamma+1) keeps every value within ALPHA (relative) of the truth.
// Merging is adding counts, so windows, runs and repetitions merge exactly.
// Negative values (a script's own Trend can hold them) are kept with their
// sign: value -v goes to bucket NEGATIVE_INDEX_OFFSET - index(v), so bucket
// order is value order and merging and quantiles need no special case.
// The engine's opsbench output (engine/internal/output) writes the same buckets.

export const HISTOGRAM_ALPHA = 0.008;
export const HISTOGRAM_MIN_VALUE_MS = 0.001;
/** Bucket indexes of negative values start here and go down (positive values use about -430..45,000). */
export const NEGATIVE_INDEX_OFFSET = -(2 ** 24);

const gammaFor = (alpha: number) => (1 + alpha) / (1 - alpha);

/** Sparse buckets as [index, count] pairs, sorted by index. */
export type Buckets = Array<[number, number]>;

export interface Histogram {
  alpha: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  buckets: Map<number, number>;
}

export function emptyHistogram(alpha = HISTOGRAM_ALPHA): Histogram {
  return { alpha, count: 0, sum: 0, min: Infinity, max: -Infinity, buckets: new Map() };
}

const magnitudeIndex = (v: number, alpha: number) => Math.ceil(Math.log(Math.max(v, HISTOGRAM_MIN_VALUE_MS)) / Math.log(gammaFor(alpha)));

/** The bucket of a value; values within HISTOGRAM_MIN_VALUE_MS of zero share the lowest positive bucket. */
export function bucketIndex(valueMs: number, alpha = HISTOGRAM_ALPHA): number {
  if (valueMs <= -HISTOGRAM_MIN_VALUE_MS) return NEGATIVE_INDEX_OFFSET - magnitudeIndex(-valueMs, alpha);
  return magnitudeIndex(valueMs, alpha);
}

/** The value a bucket reports: within alpha (relative) of every value in it, with its sign. */
export function bucketValue(index: number, alpha = HISTOGRAM_ALPHA): number {
  const gamma = gammaFor(alpha);
  if (index < NEGATIVE_INDEX_OFFSET / 2) return -(2 * gamma ** (NEGATIVE_INDEX_OFFSET - index)) / (gamma + 1);
  return (2 * gamma ** index) / (gamma + 1);
}

export function recordValue(h: Histogram, valueMs: number): void {
  const i = bucketIndex(valueMs, h.alpha);
  h.buckets.set(i, (h.buckets.get(i) ?? 0) + 1);
  h.count++;
  h.sum += valueMs;
  if (valueMs < h.min) h.min = valueMs;
  if (valueMs > h.max) h.max = valueMs;
}

export interface HistogramPart {
  count: number;
  sum: number;
  min: number;
  max: number;
  buckets: Buckets;
}

/** Adds a stored part (one second's aggregate, say) into `into`. */
export function mergeInto(into: Histogram, part: HistogramPart): Histogram {
  for (const [i, c] of part.buckets) into.buckets.set(i, (into.buckets.get(i) ?? 0) + c);
  into.count += part.count;
  into.sum += part.sum;
  if (part.count > 0) {
    into.min = Math.min(into.min, part.min);
    into.max = Math.max(into.max, part.max);
  }
  return into;
}

export function mergeHistograms(a: Histogram, b: Histogram): Histogram {
  const out = emptyHistogram(a.alpha);
  mergeInto(out, toPart(a));
  return mergeInto(out, toPart(b));
}

export function toPart(h: Histogram): HistogramPart {
  const buckets = [...h.buckets.entries()].sort((x, y) => x[0] - y[0]);
  return { count: h.count, sum: h.sum, min: h.min, max: h.max, buckets };
}

/**
 * The p-quantile (0..1) as k6 computes it: the value at 0-based rank
 * p*(n-1), interpolated linearly between neighbouring ranks. Each rank's value
 * is its bucket's representative, clamped to the exact min and max.
 */
export function quantile(h: Histogram, p: number): number {
  if (h.count === 0) return 0;
  if (h.count === 1) return h.min;
  const sorted = [...h.buckets.entries()].sort((x, y) => x[0] - y[0]);
  const rank = p * (h.count - 1);
  const lo = valueAtRank(sorted, Math.floor(rank), h);
  const hi = valueAtRank(sorted, Math.ceil(rank), h);
  return lo + (hi - lo) * (rank - Math.floor(rank));
}

function valueAtRank(sorted: Buckets, rank: number, h: Histogram): number {
  if (rank <= 0) return h.min;
  if (rank >= h.count - 1) return h.max;
  let seen = 0;
  for (const [i, c] of sorted) {
    seen += c;
    if (rank < seen) return Math.min(h.max, Math.max(h.min, bucketValue(i, h.alpha)));
  }
  return h.max;
}
