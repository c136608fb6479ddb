import { compareGroups, type GroupVerdict, type VerdictOptions } from "../statistics/verdict-method";

/** Where the samples of a comparison came from: one value per run, or the per-second series of a single run. */
export type SampleBasis = "repetitions" | "time-windows";

export interface ComparedGroup {
  label: string;
  /** One value per repetition (a study cell), or per second of a single run's load. */
  values: number[];
  basis: SampleBasis;
}

/** A verdict as pages, the CLI and exports show it (statistics/verdict-method.ts decides it). */
export type MetricVerdict = GroupVerdict;

/**
 * The verdict on one metric between two groups, by the one statistics module:
 * Welch's t-interval between repetitions, a moving-block bootstrap within single
 * runs, no verdict when run-level values meet seconds; "no significant difference"
 * when the interval covers zero, "equivalent" inside the margin (default 5%).
 */
export function verdict(
  metric: string,
  baseline: ComparedGroup,
  candidate: ComparedGroup,
  opts: VerdictOptions & { lowerIsBetter: boolean },
): MetricVerdict {
  const sample = (g: ComparedGroup) => ({ kind: g.basis === "repetitions" ? ("runs" as const) : ("seconds" as const), values: g.values });
  return compareGroups(
    metric,
    { label: baseline.label, sample: sample(baseline) },
    { label: candidate.label, sample: sample(candidate) },
    opts,
  );
}
