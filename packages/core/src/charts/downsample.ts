// Series reduced to what a chart can show. Largest-triangle-three-buckets (Steinarsson
// 2013) keeps the points that shape the line (a spike's peak survives, a flat stretch
// becomes a few points), so the number of points follows the chart's width, not the
// run's length. Null values (buckets without requests) are gaps, kept as such.

/** Points a chart draws per pixel of its width: one every 2 px is as dense as a line can be read. */
export const PIXELS_PER_POINT = 2;
/** The widest chart the pages draw (px of plot area): the server sends no more points than this allows. */
export const MAX_CHART_WIDTH_PX = 600;
export const CHART_POINT_BUDGET = Math.floor(MAX_CHART_WIDTH_PX / PIXELS_PER_POINT);

/** Indexes of the points LTTB keeps of (x[i], y[i]); always the first and the last. Nulls are skipped. */
export function lttbIndexes(x: readonly number[], y: ReadonlyArray<number | null>, threshold: number): number[] {
  const idx = x.map((_, i) => i).filter((i) => y[i] != null);
  if (threshold >= idx.length || threshold < 3) return threshold < 3 ? idx.slice(0, Math.max(0, threshold)) : idx;
  const out = [idx[0]!];
  const every = (idx.length - 2) / (threshold - 2);
  let a = 0;
  for (let i = 0; i < threshold - 2; i++) {
    // The average of the next bucket is the third corner of the triangle.
    const nextStart = Math.floor((i + 1) * every) + 1;
    const nextEnd = Math.min(Math.floor((i + 2) * every) + 1, idx.length);
    let avgX = 0;
    let avgY = 0;
    for (let j = nextStart; j < nextEnd; j++) {
      avgX += x[idx[j]!]!;
      avgY += y[idx[j]!]!;
    }
    const n = Math.max(1, nextEnd - nextStart);
    avgX /= n;
    avgY /= n;
    const start = Math.floor(i * every) + 1;
    const end = Math.floor((i + 1) * every) + 1;
    const ax = x[idx[a]!]!;
    const ay = y[idx[a]!]!;
    let best = start;
    let bestArea = -1;
    for (let j = start; j < end; j++) {
      const area = Math.abs((ax - avgX) * (y[idx[j]!]! - ay) - (ax - x[idx[j]!]!) * (avgY - ay));
      if (area > bestArea) {
        bestArea = area;
        best = j;
      }
    }
    out.push(idx[best]!);
    a = best;
  }
  out.push(idx[idx.length - 1]!);
  return out;
}

/**
 * Rows reduced to at most `budget` per series: each series keeps its own LTTB points
 * (its value elsewhere becomes null, so lines join the kept points); a row no series
 * keeps is dropped. Rows are objects keyed by `x` and the series' keys.
 */
export function downsampleRows<R extends Record<string, number | null>>(
  rows: readonly R[],
  xKey: string,
  keys: readonly string[],
  budget: number,
): R[] {
  if (rows.length <= budget) return [...rows];
  const x = rows.map((r) => r[xKey] ?? 0);
  const kept = keys.map(
    (k) =>
      new Set(
        lttbIndexes(
          x,
          rows.map((r) => r[k] ?? null),
          budget,
        ),
      ),
  );
  const out: R[] = [];
  rows.forEach((r, i) => {
    if (!kept.some((s) => s.has(i))) return;
    const row: Record<string, number | null> = { [xKey]: r[xKey] ?? null };
    keys.forEach((k, ki) => {
      row[k] = kept[ki]!.has(i) ? (r[k] ?? null) : null;
    });
    out.push(row as R);
  });
  return out;
}
