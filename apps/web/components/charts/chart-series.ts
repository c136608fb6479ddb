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
