// The commit range a detected change falls in (issue 36): the trend page names it beside the change, and opens the
// comparison of the runs before and after it.
import type { DetectedChange } from "./change-detection";

export interface CommitRange {
  /** The commit of the last run before the change with a known commit; null when none before it has one. */
  lastBefore: string | null;
  /** The commit of the first run from the change on with a known commit; null when none has one. */
  firstAfter: string | null;
  /**
   * Both ends known and equal: the runs either side were of the same code, so the change came from elsewhere
   * (the platform, the load host, the data).
   */
  sameCommit: boolean;
}

/**
 * The commits around `change` in `points` (the series detectChanges was given, in the same order; a point's commit
 * is null or absent when its run recorded none: the range then widens to the nearest known commits either side).
 */
export function changeCommitRange(points: readonly { commit?: string | null }[], change: Pick<DetectedChange, "index">): CommitRange {
  const { index } = change;
  if (!(Number.isInteger(index) && index >= 1 && index < points.length))
    throw new RangeError(
      `changeCommitRange: change index ${index} is not inside a series of ${points.length} points (1..${points.length - 1})`,
    );
  let lastBefore: string | null = null;
  for (let i = index - 1; i >= 0 && lastBefore === null; i--) lastBefore = points[i]!.commit ?? null;
  let firstAfter: string | null = null;
  for (let i = index; i < points.length && firstAfter === null; i++) firstAfter = points[i]!.commit ?? null;
  return { lastBefore, firstAfter, sameCommit: lastBefore !== null && lastBefore === firstAfter };
}
