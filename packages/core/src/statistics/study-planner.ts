// The study planner: before a study is launched, the chance its verdicts find a stated difference, and the
// repetitions that would find it 80% of the time, under the rule the comparison applies (rule-power.ts): the margin,
// the primary metric's family (one verdict per pair of targets within a workload) with Holm's correction, and a
// run-to-run CV (stated, or measured from earlier runs of the same target x workload).
import { type RuleOfVerdict, rulePower, runsForPower, ruleDetectable } from "./rule-power";
import { DEFAULT_EFFECT, DEFAULT_EQUIVALENCE_MARGIN, DETECTION_POWER } from "./verdict-types";
import { mean, sampleStandardDeviation } from "./repetition-stats";

export interface StudyPlanInput {
  /** Repetitions a side (each target x workload cell's runs). */
  repetitions: number;
  /** Run-to-run coefficient of variation of the primary metric (0.05 = 5%). */
  cv: number;
  /** Practical-equivalence margin, relative (default 5%). */
  margin?: number;
  /** The difference to find, relative (default 10%). */
  effect?: number;
  /** Verdicts in the primary metric's family: pairs of targets compared (default 1). */
  familySize?: number;
  level?: number;
}

export interface StudyPlan {
  repetitions: number;
  cv: number;
  margin: number;
  effect: number;
  familySize: number;
  /** The chance the comparison calls a true difference of `effect` better with these repetitions. */
  power: number;
  /** Repetitions a side for 80% power (null: effect within the margin, or more than 1,000). */
  repetitionsNeeded: number | null;
  /** The smallest difference found 80% of the time with these repetitions, relative. */
  detectable: number;
  text: string;
}

const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;

/**
 * The plan for relative differences of a metric whose runs vary by `cv`: a run's value has variance cv^2 relative to
 * the baseline, so a difference of n runs a side has se = cv sqrt(2 / n) with Welch's lowest df, n - 1 (the number
 * then holds when the two sides' spreads differ).
 */
export function planStudy(input: StudyPlanInput): StudyPlan {
  const { repetitions, cv } = input;
  if (!(Number.isInteger(repetitions) && repetitions >= 2))
    throw new RangeError(`repetitions must be a whole number >= 2, not ${repetitions}`);
  if (!(cv >= 0 && cv < 1)) throw new RangeError(`cv must be a fraction in [0, 1), not ${cv}`);
  const margin = input.margin ?? DEFAULT_EQUIVALENCE_MARGIN;
  const effect = input.effect ?? DEFAULT_EFFECT;
  const familySize = Math.max(1, input.familySize ?? 1);
  const rule: RuleOfVerdict = { level: input.level ?? 0.95, familySize, band: margin };
  const se = cv * Math.sqrt(2 / repetitions);
  const power = rulePower(effect, se, repetitions - 1, rule);
  const repetitionsNeeded = runsForPower(effect, cv * cv, rule, DETECTION_POWER);
  const detectable = ruleDetectable(se, repetitions - 1, rule, DETECTION_POWER);
  const family = familySize > 1 ? `, Holm's correction over ${familySize} pairs` : "";
  const needed =
    repetitionsNeeded === null
      ? effect <= margin
        ? `a ${pct(effect)} difference is within the ${pct(margin)} margin: never "better"`
        : "more than 1,000 repetitions would be needed for 80%"
      : `${repetitionsNeeded} repetitions a side would find it 80% of the time`;
  return {
    repetitions,
    cv,
    margin,
    effect,
    familySize,
    power,
    repetitionsNeeded,
    detectable,
    text: `With ${repetitions} repetitions a side, a run-to-run CV of ${pct(cv)}, a margin of ${pct(margin)}${family}: a true ${pct(effect)} difference is found ${Math.round(power * 100)}% of the time (80% from about ${pct(detectable)}); ${needed}.`,
  };
}

/** The run-to-run CV of earlier runs' values (SD / mean), or null with fewer than 2 runs or a mean of 0. */
export function runToRunCvOf(values: readonly number[]): number | null {
  if (values.length < 2) return null;
  const m = mean(values);
  return m > 0 ? sampleStandardDeviation(values) / m : null;
}
