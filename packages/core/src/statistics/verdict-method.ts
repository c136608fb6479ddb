// One way to say whether two groups differ, used by every page, the CLI and the
// exports. The method depends on what the samples are:
// - repetitions (one value per run), 2..29 a side: Welch's t between the run
//   values (its df even at equal n: unequal spreads are the rule between a
//   serverless and a VM target); one run against 2+ runs: Student's t with the
//   runs' spread standing for both sides;
// - repetitions, 30 or more a side: a seeded percentile bootstrap;
// - one run a side: what the two runs showed, over their per-second series (a
//   moving-block bootstrap of the whole-run value: a mean, a share, or a whole-run
//   percentile from the merged histogram), labelled "within-run" and never
//   `significant`, unless a run-to-run coefficient of variation is stated: then
//   the interval is widened by it and the verdict is one between configurations;
// - run-level values on one side and seconds on the other: no verdict.
// Three outcomes: better beyond the margin (the whole interval beyond +-margin),
// equivalent (the whole interval inside it), inconclusive (with the smallest
// difference the rule could have found and the runs a side a stated effect
// needs: rule-power.ts). A comparison's primary metric's verdicts are one family:
// Holm's correction decides which claims, "better" and "equivalent" alike, stand
// (applyFamily); the other metrics are descriptive and never significant.

import { studentTQuantile } from "./repetition-stats";
import { runsInterval, secondsInterval, type Interval } from "./verdict-intervals";
import { METHOD_LABELS, withMargin } from "./verdict-text";
import {
  DEFAULT_EFFECT,
  DEFAULT_EQUIVALENCE_MARGIN,
  type GroupVerdict,
  type VerdictOptions,
  type VerdictSample,
  type VerdictScope,
} from "./verdict-types";

// The method's parts: what it takes and gives, the intervals, the margin and words, the family.
export * from "./verdict-types";
export { powerWithMoreRuns, relativeDifference, withMargin, verdictDetail, verdictText } from "./verdict-text";
export * from "./verdict-family";

/**
 * The version of how verdicts are decided (this module, compare/comparison-samples.ts and the metric catalog): part
 * of a stored comparison's cache key, so comparisons stored by older verdict code are computed again. Bump it with
 * any change to a method, an interval, a margin, the outcomes, their texts or the compared metrics.
 */
export const VERDICT_VERSION = 2;

const sampleSize = (s: VerdictSample) =>
  s.kind === "runs" || s.kind === "seconds" ? s.values.length : s.kind === "share-seconds" ? s.denominators.length : s.counts.length;

/**
 * The verdict on one metric between a baseline and a candidate group: the interval of the difference (or ratio)
 * and its outcome under the margin (withMargin). A single verdict's family is itself until applyFamily runs.
 */
export function compareGroups(
  metric: string,
  baseline: { label: string; sample: VerdictSample },
  candidate: { label: string; sample: VerdictSample },
  opts: VerdictOptions,
): GroupVerdict {
  const level = opts.level ?? 0.95;
  const margin = opts.margin ?? DEFAULT_EQUIVALENCE_MARGIN;
  const scale = opts.scale ?? "difference";
  const runsSide = (s: VerdictSample) => s.kind === "runs";
  const kind: GroupVerdict["basis"] =
    runsSide(baseline.sample) === runsSide(candidate.sample) ? (runsSide(baseline.sample) ? "runs" : "seconds") : "mixed";
  const unitOf = kind === "seconds" ? "s" : "runs";
  const samples: [number, number] = [sampleSize(baseline.sample), sampleSize(candidate.sample)];
  const cv = kind === "seconds" && opts.runToRunCv !== undefined ? opts.runToRunCv : null;
  if (cv !== null && !(cv >= 0 && cv < 1)) throw new RangeError(`runToRunCv must be a fraction in [0, 1), not ${cv}`);
  const base = {
    metric,
    baseline: baseline.label,
    candidate: candidate.label,
    basis: kind,
    scope: (kind === "seconds" && cv === null ? "within-run" : "between-configurations") as VerdictScope,
    runToRunCv: cv,
    samples,
    scale,
    role: opts.role ?? ("primary" as const),
    effect: opts.effect ?? DEFAULT_EFFECT,
    level,
    margin,
    marginUnit: opts.marginUnit ?? ("relative" as const),
    family: null,
    familySize: 1,
  };
  const noVerdict = (reason: string): GroupVerdict => ({
    ...base,
    method: "none",
    methodLabel: METHOD_LABELS.none,
    estimate: null,
    low: null,
    high: null,
    standardError: null,
    df: null,
    pValue: null,
    adjustedPValue: null,
    detectable: null,
    power: null,
    runsNeeded: null,
    outcome: "no-verdict",
    significant: false,
    seed: null,
    resamples: null,
    blockLengths: null,
    baselineMean: null,
    reason,
    text: `no verdict on ${metric} (${samples[0]} vs ${samples[1]} ${unitOf}): ${reason}`,
  });

  let interval: Interval | string;
  const a = baseline.sample;
  const b = candidate.sample;
  if (kind === "mixed")
    interval = "one side has repetitions and the other a single run's seconds; run-level and per-second values are never compared";
  else if (a.kind === "runs" && b.kind === "runs") {
    if (Math.max(a.values.length, b.values.length) < 2 || Math.min(a.values.length, b.values.length) < 1)
      interval = "needs at least 2 runs on one side and 1 on the other (or a single run a side, judged over its seconds)";
    else interval = runsInterval(a, b, scale, { level, seed: opts.seed ?? 1, resamples: opts.resamples ?? 4000 });
  } else if (a.kind !== "runs" && b.kind !== "runs") interval = secondsInterval(a, b, scale, cv);
  else interval = "run-level values are never compared with a single run's seconds";
  if (typeof interval === "string") return noVerdict(interval);

  const t = studentTQuantile(1 - (1 - level) / 2, interval.df);
  const lowT = interval.low ?? interval.estimate - t * interval.standardError;
  const highT = interval.high ?? interval.estimate + t * interval.standardError;
  const natural = (x: number) => (scale === "difference" ? x : Math.exp(x));
  const verdict: GroupVerdict = {
    ...base,
    method: interval.method,
    methodLabel: METHOD_LABELS[interval.method],
    estimate: natural(interval.estimate),
    low: natural(lowT),
    high: natural(highT),
    standardError: interval.standardError,
    df: interval.df,
    pValue: null,
    adjustedPValue: null,
    detectable: null,
    power: null,
    runsNeeded: null,
    baselineMean: Math.abs(interval.baselineValue),
    outcome: "inconclusive",
    significant: false,
    seed: interval.seed ?? null,
    resamples: interval.resamples ?? null,
    blockLengths: interval.blockLengths ?? null,
    reason: null,
    text: "",
  };
  return withMargin(verdict, margin, opts);
}
