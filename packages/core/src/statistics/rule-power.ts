// The power of the rule a verdict applies, not of a test against zero: "better" needs the whole interval beyond the
// margin, at the level Holm's correction asks of the family's strictest member (alpha / m). A true difference delta
// (on the test scale) is called better when (estimate - band) / se exceeds that critical t, so the difference found
// with 80% power is band + (t_crit + t_0.8) x se, not (t_0.975 + t_0.8) x se. Read by a verdict's detectable
// difference, power and runs needed (verdict-text.ts) and by the study planner (study-planner.ts).
import { studentTCdf, studentTQuantile } from "./repetition-stats";

/** What a rule is: its level, the family Holm's correction runs over, and its margin on the test scale. */
export interface RuleOfVerdict {
  level: number;
  /** Verdicts in the family (1: alone). */
  familySize: number;
  /** The margin on the test scale (0: a test against no difference). */
  band: number;
}

/** The two-sided critical t at Holm's first step (alpha / m): what the family's most significant member must pass. */
export function holmCritical(rule: RuleOfVerdict, df: number): number {
  const alpha = (1 - rule.level) / Math.max(1, rule.familySize);
  return studentTQuantile(1 - alpha / 2, df);
}

/**
 * The chance the rule calls a true difference `delta` (> 0, test scale) better: the estimate's interval must clear the
 * margin at the Holm level. The noncentral t is approximated by the central one shifted by (delta - band) / se.
 */
export function rulePower(delta: number, se: number, df: number, rule: RuleOfVerdict): number {
  if (!(se > 0)) return delta > rule.band ? 1 : 0;
  return 1 - studentTCdf(holmCritical(rule, df) - (delta - rule.band) / se, df);
}

/** The smallest true difference (test scale) the rule calls better with probability `power`. */
export function ruleDetectable(se: number, df: number, rule: RuleOfVerdict, power: number): number {
  return rule.band + (holmCritical(rule, df) + studentTQuantile(power, df)) * se;
}

/** Past this many runs a side "runs needed" says "more than" rather than a number. */
export const MAX_RUNS_PLANNED = 1000;

/**
 * Runs a side for which the rule calls a true difference `delta` better with probability `power`, given the variance
 * of one run's value (test scale), equal on both sides. The df are n - 1, Welch's lowest at equal n, so that the
 * number holds when the two sides' spreads differ. Null when delta is within the margin (never "better") or beyond
 * MAX_RUNS_PLANNED.
 */
export function runsForPower(delta: number, perRunVariance: number, rule: RuleOfVerdict, power: number): number | null {
  if (!(delta > rule.band)) return null;
  if (perRunVariance === 0) return 2;
  const powerAt = (n: number) => rulePower(delta, Math.sqrt((2 * perRunVariance) / n), n - 1, rule);
  if (powerAt(MAX_RUNS_PLANNED) < power) return null;
  // Power rises with n: the smallest n with enough of it, by bisection.
  let lo = 2;
  let hi = MAX_RUNS_PLANNED;
  if (powerAt(lo) >= power) return lo;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (powerAt(mid) >= power) hi = mid;
    else lo = mid;
  }
  return hi;
}
