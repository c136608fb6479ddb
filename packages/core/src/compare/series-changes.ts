// The changes a trend marks (docs/trends.md): series/change-detection.ts run over a series' valid points of one
// metric, each change with the commit range it falls in (series/commit-range.ts) and the runs either side, which
// the trend page opens as a comparison ("before vs after"). Runs flagged invalid, and runs without an interval (a
// short run), take no part: the detection weighs each run by its own interval and has none for them.
import { changeCommitRange, type CommitRange } from "../series/commit-range";
import { type ChangeDetectionOptions, detectChanges } from "../series/change-detection";
import type { PointValue, RunPointMetrics } from "./run-point";

/** The metrics a trend detects changes in: the ones whose values are > 0 (the detection is on the log scale). */
export const CHANGE_METRICS = ["latency", "throughput", "costPerThousand"] as const;
export type ChangeMetric = (typeof CHANGE_METRICS)[number];

/** The runs either side of a change that its comparison opens: up to this many nearest each side, within their segments. */
export const CHANGE_COMPARE_RUNS = 5;

export interface SeriesChange {
  metric: ChangeMetric;
  /** The index (in the series' points) of the first run after the change, and that run's id. */
  index: number;
  runId: string;
  /** The levels either side (the segments' estimates) and after / before - 1. */
  before: number;
  after: number;
  relative: number;
  commits: CommitRange;
  /** The runs compared: the nearest valid ones before the change and from it on, oldest first. */
  beforeRunIds: string[];
  afterRunIds: string[];
}

type TrendPoint = RunPointMetrics & { id: string; commit: string | null; valid: boolean };

const usable = (v: PointValue): v is PointValue & { value: number; low: number; high: number } =>
  v.value !== null && v.low !== null && v.high !== null && v.value > 0 && v.low > 0;

/** The changes of one metric over a series' points (oldest first). */
export function seriesChanges(points: readonly TrendPoint[], metric: ChangeMetric, options?: ChangeDetectionOptions): SeriesChange[] {
  // The detection sees only the valid runs with an interval; indexes are mapped back to the whole series.
  const kept = points.map((p, i) => ({ p, i })).filter(({ p }) => p.valid && usable(p[metric]));
  if (kept.length < 4) return [];
  const values = kept.map(({ p }) => {
    const v = p[metric] as PointValue & { value: number; low: number; high: number };
    return { value: v.value, low: v.low, high: v.high };
  });
  const changes = detectChanges(values, options);
  const bounds = [0, ...changes.map((c) => c.index), kept.length];
  return changes.map((c, k) => {
    const from = Math.max(bounds[k]!, c.index - CHANGE_COMPARE_RUNS);
    const to = Math.min(bounds[k + 2]!, c.index + CHANGE_COMPARE_RUNS);
    const first = kept[c.index]!;
    return {
      metric,
      index: first.i,
      runId: first.p.id,
      before: c.before,
      after: c.after,
      relative: c.relative,
      // The range over the runs the detection saw: an invalid run between them says nothing of the code's level.
      commits: changeCommitRange(
        kept.map(({ p }) => ({ commit: p.commit })),
        c,
      ),
      beforeRunIds: kept.slice(from, c.index).map(({ p }) => p.id),
      afterRunIds: kept.slice(c.index, to).map(({ p }) => p.id),
    };
  });
}

/** The changes of every metric a trend detects them in, in series order. */
export const allSeriesChanges = (points: readonly TrendPoint[]): SeriesChange[] =>
  CHANGE_METRICS.flatMap((m) => seriesChanges(points, m)).sort((a, b) => a.index - b.index);
