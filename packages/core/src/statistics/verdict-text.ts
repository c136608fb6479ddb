// A verdict decided under a margin and said in words (verdict-method.ts): the outcome, the smallest difference the
// samples detect, the runs a side the margin needs, and the sentence pages, the CLI and exports show.
import { metricOf } from "../metrics/metric-catalog";
import { studentTCdf } from "./repetition-stats";
import { type RuleOfVerdict, ruleDetectable, rulePower, runsForPower } from "./rule-power";
import { DETECTION_POWER, type GroupVerdict, type VerdictMethod, type VerdictOptions, type VerdictOutcome } from "./verdict-types";

export const METHOD_LABELS: Record<VerdictMethod, string> = {
  "welch-t": "Welch's t over run values",
  "single-run-t": "Student's t: one run against the other side's runs (their run-to-run spread)",
  bootstrap: "percentile bootstrap",
  "moving-block-bootstrap": "moving-block bootstrap over per-second series",
  none: "no method applies",
};

export const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3));
export const pct = (v: number) => `${fmt(v * 100)}%`;

/**
 * The per-run variance behind a verdict's standard error (on the test scale), what "runs a side needed" scales:
 * se^2 / (1/na + 1/nb) between repetitions, se^2 / 2 for single runs widened by a stated CV; unknown within-run.
 */
function perRunVarianceOf(v: GroupVerdict): number | null {
  if (v.scope === "within-run" || v.standardError === null) return null;
  const [na, nb] = v.basis === "runs" ? v.samples : [1, 1];
  return v.standardError ** 2 / (1 / na + 1 / nb);
}

/** A relative amount (margin, effect) on the test scale: log for ratios and odds, of the baseline on differences, or points. */
function onTestScale(v: GroupVerdict, amount: number): number {
  if (v.scale !== "difference") return Math.log(1 + amount);
  return v.marginUnit === "points" ? amount : amount * (v.baselineMean ?? 0);
}

/** The margin on the test scale. */
const bandOf = (v: GroupVerdict, margin: number) => onTestScale(v, margin);

/** The rule a verdict applies: its level, its margin, and its family (Holm's first step for the primary metric). */
const ruleOf = (v: GroupVerdict, margin: number): RuleOfVerdict => ({
  level: v.level,
  familySize: v.role === "primary" ? v.familySize : 1,
  band: bandOf(v, margin),
});

/** Two-sided p of the claim the interval leans to: "beyond the margin" where it leans out, "equivalent" where it leans in. */
function claimPValue(e: number, se: number, band: number, df: number): number {
  const beyond = se > 0 ? (Math.abs(e) - band) / se : Math.abs(e) > band ? Infinity : -Infinity;
  // Equivalence (two one-sided tests): the binding side is the margin nearer the estimate.
  const inside = se > 0 ? (band - Math.abs(e)) / se : Math.abs(e) < band ? Infinity : -Infinity;
  const p = (t: number) => Math.min(1, 2 * (1 - studentTCdf(t, df)));
  return Math.min(p(beyond), p(inside));
}

/**
 * The verdict under a practical-equivalence margin and its family's size (v.familySize): the interval stays; the
 * outcome, the p-value of its claim, the detectable difference, the power and runs needed for its stated effect, and
 * the text are decided again (so a page can let the user set the margin without recomputing any interval). A
 * "no verdict" only takes the margin.
 */
export function withMargin(v: GroupVerdict, margin: number, opts: Pick<VerdictOptions, "lowerIsBetter" | "unit">): GroupVerdict {
  if (!(margin >= 0 && Number.isFinite(margin))) throw new RangeError(`margin must be a number >= 0, not ${margin}`);
  const { estimate, low, high, baselineMean, standardError, df } = v;
  if (v.method === "none" || estimate === null || low === null || high === null || baselineMean === null || standardError === null)
    return { ...v, margin };
  const logScale = v.scale !== "difference";
  const rule = ruleOf(v, margin);
  const band = rule.band;
  const onScale = (x: number) => (logScale ? Math.log(x) : x);
  const [l, h, e] = [onScale(low), onScale(high), onScale(estimate)];
  const insideMargin = l >= -band && h <= band;
  const beyond = l > band || h < -band;
  const candidateHigher = e > 0;
  const better: VerdictOutcome = candidateHigher !== opts.lowerIsBetter ? "candidate-better" : "baseline-better";
  const outcome: VerdictOutcome = insideMargin ? "equivalent" : beyond ? better : "inconclusive";
  const testDf = df ?? 1e6;
  const pValue = claimPValue(e, standardError, band, testDf);
  const relative = (x: number) => (logScale ? Math.exp(x) - 1 : v.marginUnit === "points" ? x : baselineMean > 0 ? x / baselineMean : 0);
  const perRun = perRunVarianceOf(v);
  const effect = onTestScale(v, v.effect);
  const betweenConfigurations = v.scope === "between-configurations";
  const judged = v.role === "primary";
  const decided: GroupVerdict = {
    ...v,
    margin,
    outcome,
    pValue,
    // Only the primary metric's verdicts are adjusted (applyFamily); a descriptive one never is.
    adjustedPValue: v.role === "primary" ? pValue : null,
    // A descriptive verdict is never a verdict: it has no power, nothing it "finds", no runs it needs.
    detectable: judged ? relative(ruleDetectable(standardError, testDf, rule, DETECTION_POWER)) : null,
    power: judged && betweenConfigurations ? rulePower(effect, standardError, testDf, rule) : null,
    runsNeeded: judged && perRun !== null ? runsForPower(effect, perRun, rule, DETECTION_POWER) : null,
    significant: betweenConfigurations && v.role === "primary" && (outcome === "candidate-better" || outcome === "baseline-better"),
  };
  return { ...decided, text: verdictText(decided, opts) };
}

function marginSaid(v: GroupVerdict): string {
  return v.marginUnit === "points" ? `+-${fmt(v.margin)} points` : `+-${fmt(v.margin * 100)}%`;
}

/** The stated effect in the margin's unit ("10%", "0.5 points"). */
const amountSaid = (v: GroupVerdict, x: number) => (v.marginUnit === "points" ? `${fmt(x)} points` : pct(x));

/** What the rule can find: the difference found with 80% power, the stated effect's power, and the runs it needs. */
function powerSaid(v: GroupVerdict): string {
  if (v.scope === "within-run") return "repeat each configuration (or state a run-to-run CV) to judge configurations";
  const found = v.detectable === null ? "" : `the rule finds a true difference of about ${amountSaid(v, v.detectable)} 80% of the time`;
  const power = v.power === null ? "" : `a true ${amountSaid(v, v.effect)} difference ${Math.round(v.power * 100)}% of the time`;
  const runs =
    v.runsNeeded === null
      ? v.effect <= v.margin
        ? `a difference of ${amountSaid(v, v.effect)} is within the margin, never "better"`
        : "more than 1,000 runs a side would be needed for 80% on it"
      : `about ${v.runsNeeded} runs a side would find it 80% of the time`;
  return [found, power, runs].filter(Boolean).join("; ");
}

/**
 * The numbers a verdict rests on, in words: the estimate and its interval, the method, the samples, the margin and
 * Holm's adjustment (what the text says in brackets after its outcome; a page's tooltip).
 */
export function verdictDetail(v: GroupVerdict, opts: Pick<VerdictOptions, "unit">): string {
  if (v.estimate === null || v.low === null || v.high === null) return v.text;
  const logScale = v.scale !== "difference";
  const unit = opts.unit ? ` ${opts.unit}` : "";
  const [na, nb] = v.samples;
  const n = v.basis === "seconds" ? `1 run a side (${na} vs ${nb} s)` : `n = ${na} vs ${nb} runs`;
  const est =
    v.scale === "log-odds"
      ? `odds ratio ${v.candidate} / ${v.baseline} = ${fmt(v.estimate)}`
      : logScale
        ? `${v.candidate} / ${v.baseline} = ${fmt(v.estimate)}`
        : `${v.candidate} - ${v.baseline} = ${fmt(v.estimate)}${unit}`;
  const range = logScale ? `${fmt(v.low)} to ${fmt(v.high)}` : `${fmt(v.low)} to ${fmt(v.high)}${unit}`;
  const blocks = v.blockLengths ? `, blocks of ${v.blockLengths[0]} and ${v.blockLengths[1]} s` : "";
  const seeded = v.seed !== null ? `, seed ${v.seed}, ${v.resamples} resamples` : "";
  const cv = v.runToRunCv !== null ? `, widened by a stated run-to-run CV of ${pct(v.runToRunCv)}` : "";
  const holm =
    v.familySize > 1 && v.adjustedPValue !== null && v.role === "primary"
      ? `, Holm-adjusted p ${fmt(v.adjustedPValue)} over ${v.familySize} verdicts`
      : "";
  return `${est}, ${Math.round(v.level * 100)}% CI ${range}; ${METHOD_LABELS[v.method]}${blocks}${seeded}${cv}, ${n}, margin ${marginSaid(v)}${holm}`;
}

/** The verdict in words: the outcome, then the numbers it rests on. */
export function verdictText(v: GroupVerdict, opts: Pick<VerdictOptions, "unit" | "lowerIsBetter">): string {
  if (v.estimate === null || v.low === null || v.high === null) return v.text;
  const logScale = v.scale !== "difference";
  const detail = verdictDetail(v, opts);
  const candidateHigher = v.estimate > (logScale ? 1 : 0);
  const winner = candidateHigher !== opts.lowerIsBetter ? v.candidate : v.baseline;
  const band = bandOf(v, v.margin);
  const [l, h] = logScale ? [Math.log(v.low), Math.log(v.high)] : [v.low, v.high];
  const beyondAlone = l > band || h < -band;
  const insideAlone = l >= -band && h <= band;
  const judged = v.scope === "between-configurations" && v.role === "primary";
  let head: string;
  if (v.role === "descriptive") {
    // Never a verdict, so no "better" and no power: where the interval lies against the margin.
    const where = v.outcome === "equivalent" ? "lies within" : beyondAlone ? `lies beyond (${winner} ahead)` : "spans";
    return `descriptive on ${v.metric}: the interval ${where} the margin (${detail})`;
  }
  switch (v.outcome) {
    case "equivalent":
      head = `equivalent on ${v.metric}: the interval lies within the margin`;
      break;
    case "candidate-better":
    case "baseline-better":
      head =
        v.scope === "within-run"
          ? `within-run: ${winner}'s run was better on ${v.metric} beyond the margin (two single runs; not a verdict between configurations)`
          : `${winner} is better on ${v.metric} beyond the margin`;
      break;
    default:
      head =
        judged && beyondAlone
          ? `inconclusive on ${v.metric}: ${winner} is better beyond the margin alone, but not after Holm's correction`
          : judged && insideAlone
            ? `inconclusive on ${v.metric}: within the margin alone, but not after Holm's correction`
            : `inconclusive on ${v.metric}: ${powerSaid(v)}`;
  }
  const prefix = v.scope === "within-run" && !head.startsWith("within-run") ? "within-run, " : "";
  return `${prefix}${head} (${detail})`;
}

/**
 * A verdict's difference relative to the baseline (0.1 = the candidate 10% higher), with its interval: the difference
 * over the baseline's value, or the odds ratio less 1 on the log-odds scale (the failure share: "+130% odds"). Null
 * without an interval, or for a margin in points (no baseline to be relative to).
 */
export function relativeDifference(v: GroupVerdict): { estimate: number; low: number; high: number; of: "value" | "odds" } | null {
  if (v.estimate === null || v.low === null || v.high === null) return null;
  if (v.scale !== "difference")
    return { estimate: v.estimate - 1, low: v.low - 1, high: v.high - 1, of: v.scale === "log-odds" ? "odds" : "value" };
  if (v.marginUnit === "points" || !(v.baselineMean !== null && v.baselineMean > 0)) return null;
  const b = v.baselineMean;
  // A positive quantity cannot fall by more than all of it: a wide interval of the difference (two runs a side) is
  // shown from -100%, in the quantity's domain, as the study tables' intervals are.
  const floor = metricOf(v.metric)?.domain === "positive" ? -1 : Number.NEGATIVE_INFINITY;
  return { estimate: v.estimate / b, low: Math.max(floor, v.low / b), high: v.high / b, of: "value" };
}

/**
 * The chance the verdict's rule finds its stated effect with `extra` more runs a side (one more round of a study: 1),
 * from the same per-run variance: what repeating buys. Null where the verdict states no power (within-run,
 * descriptive, no interval). The df grow by `extra` from the verdict's own (Welch's df grow by at least one per run a
 * side added), so "now" and "after" differ by the runs only; single runs widened by a stated CV become repetitions
 * (df: the smaller side's runs less one, as runsForPower takes).
 */
export function powerWithMoreRuns(v: GroupVerdict, extra: number): { runs: [number, number]; power: number } | null {
  const perRun = perRunVarianceOf(v);
  if (v.power === null || perRun === null || v.role !== "primary") return null;
  const [na, nb] = v.basis === "runs" ? v.samples : [1, 1];
  const runs: [number, number] = [na + extra, nb + extra];
  const se = Math.sqrt(perRun * (1 / runs[0] + 1 / runs[1]));
  const df = v.basis === "runs" && v.df !== null ? v.df + extra : Math.min(...runs) - 1;
  return { runs, power: rulePower(onTestScale(v, v.effect), se, df, ruleOf(v, v.margin)) };
}
