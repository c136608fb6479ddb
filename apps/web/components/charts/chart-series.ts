// Series reduced to what a chart can draw (core's LTTB, charts/downsample.ts): each
// metric keeps the points that shape its own line, so a spike in requests or in p95
// survives; a series never sends more than CHART_POINT_BUDGET points, however long the run.
import { CHART_POINT_BUDGET, lttbIndexes, type TimeBucket } from "@opsbench/core";

/** Shares of the budget per metric (the lines that matter most get the most points). */
const SHARES: ReadonlyArray<[keyof TimeBucket, number]> = [
  ["requests", 0.3],
  ["p95Ms", 0.3],
  ["p99Ms", 0.2],
  ["p50Ms", 0.1],
  ["goodput", 0.1],
];

export function chartSeries(series: readonly TimeBucket[], budget = CHART_POINT_BUDGET): TimeBucket[] {
  if (series.length <= budget) return [...series];
  const x = series.map((b) => b.offsetSeconds);
  const keep = new Set<number>();
  for (const [key, share] of SHARES)
    for (const i of lttbIndexes(
      x,
      series.map((b) => b[key]),
      Math.max(3, Math.floor(budget * share)),
    ))
      keep.add(i);
  return series.filter((_, i) => keep.has(i));
}

/** Past this many buckets, bars are too thin to read: counts are drawn as a step line. */
export const MAX_BARS = 40;
/** Past this many points, a line's dots hide the line. */
export const MAX_DOTS = 60;

/**
 * A series as the page sends it to the browser: one array per field (no repeated keys), 4 significant digits;
 * evenly spaced offsets (a series not downsampled) as their first one and step.
 */
export interface PackedSeries {
  offsetSeconds: number[] | { from: number; step: number };
  requests: number[];
  p50Ms: Array<number | null>;
  p95Ms: Array<number | null>;
  p99Ms: Array<number | null>;
  goodput: Array<number | null>;
}

const sig = (v: number) => Number(v.toPrecision(4));
const sigOrNull = (v: number | null) => (v === null ? null : sig(v));

export function packOffsets(offsets: number[]): PackedSeries["offsetSeconds"] {
  const step = (offsets[1] ?? 0) - (offsets[0] ?? 0);
  const even = offsets.length > 2 && step > 0 && offsets.every((o, i) => o === offsets[0]! + i * step);
  return even ? { from: offsets[0]!, step } : offsets;
}

/** Offsets back from packOffsets, for `n` points. */
export function unpackOffsets(offsets: PackedSeries["offsetSeconds"], n: number): number[] {
  if (Array.isArray(offsets)) return offsets;
  const { from, step } = offsets;
  return Array.from({ length: n }, (_, i) => from + i * step);
}

export function packSeries(series: readonly TimeBucket[]): PackedSeries {
  return {
    offsetSeconds: packOffsets(series.map((b) => b.offsetSeconds)),
    // Counts keep two decimals (a group of repetitions averages them): the CSV of a chart adds up to the totals.
    requests: series.map((b) => Math.round(b.requests * 100) / 100),
    p50Ms: series.map((b) => sigOrNull(b.p50Ms)),
    p95Ms: series.map((b) => sigOrNull(b.p95Ms)),
    p99Ms: series.map((b) => sigOrNull(b.p99Ms)),
    goodput: series.map((b) => sigOrNull(b.goodput)),
  };
}

export function unpackSeries(p: PackedSeries): TimeBucket[] {
  return unpackOffsets(p.offsetSeconds, p.requests.length).map((offsetSeconds, i) => ({
    offsetSeconds,
    requests: p.requests[i] ?? 0,
    p50Ms: p.p50Ms[i] ?? null,
    p95Ms: p.p95Ms[i] ?? null,
    p99Ms: p.p99Ms[i] ?? null,
    goodput: p.goodput[i] ?? null,
  }));
}

/** Points of a latency CDF a chart draws: as many as the comparison has (core's latencyCdf gives at most 200). */
export const CDF_POINTS = 200;

/** A CDF as the page sends it: two columns. */
export interface PackedCdf {
  ms: number[];
  cumulative: number[];
}

export const packCdf = (points: ReadonlyArray<{ ms: number; cumulative: number }>): PackedCdf => ({
  ms: points.map((p) => p.ms),
  cumulative: points.map((p) => p.cumulative),
});

export const unpackCdf = (p: PackedCdf) => p.ms.map((ms, i) => ({ ms, cumulative: p.cumulative[i] ?? 0 }));

/** A CDF reduced to CDF_POINTS (LTTB on log latency), rounded like the series. */
export function chartCdf(points: ReadonlyArray<{ ms: number; cumulative: number }>): Array<{ ms: number; cumulative: number }> {
  const kept =
    points.length <= CDF_POINTS
      ? points
      : lttbIndexes(
          points.map((p) => Math.log(Math.max(p.ms, 1e-3))),
          points.map((p) => p.cumulative),
          CDF_POINTS,
        ).map((i) => points[i]!);
  return kept.map((p) => ({ ms: sig(p.ms), cumulative: sig(p.cumulative) }));
}
