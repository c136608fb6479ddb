// A verdict decided under a margin and said in words (verdict-method.ts): the outcome, the smallest difference the
// samples detect, the runs a side the margin needs, and the sentence pages, the CLI and exports show.
import { studentTCdf, studentTQuantile } from "./repetition-stats";
import { DETECTION_POWER, type GroupVerdict, type VerdictMethod, type VerdictOptions, type VerdictOutcome } from "./verdict-types";

export const METHOD_LABELS: Record<VerdictMethod, string> = {
  "welch-t": "Student's t over run values (Welch's when n differ)",
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

/** The margin on the test scale (log for ratios): a relative margin of the baseline, or points. */
function bandOf(v: GroupVerdict, margin: number): number {
  if (v.scale === "ratio") return Math.log(1 + margin);
  return v.marginUnit === "points" ? margin : margin * (v.baselineMean ?? 0);
}

/** The smallest |difference| on the test scale that these samples detect with DETECTION_POWER (two-sided, at the level). */
function detectableOnScale(v: GroupVerdict): number {
  const df = v.df ?? 1e6;
  return (studentTQuantile(1 - (1 - v.level) / 2, df) + studentTQuantile(DETECTION_POWER, df)) * (v.standardError ?? 0);
}

/** Runs a side for which a difference of `band` (test scale) is detected with DETECTION_POWER, given a per-run variance. */
function runsNeededFor(band: number, perRunVariance: number, level: number): number | null {
  if (!(band > 0)) return null;
  if (perRunVariance === 0) return 2;
  let n = 2;
  for (let i = 0; i < 30; i++) {
    const df = 2 * n - 2;
    const k = studentTQuantile(1 - (1 - level) / 2, df) + studentTQuantile(DETECTION_POWER, df);
    const next = Math.max(2, Math.ceil((2 * perRunVariance * k * k) / (band * band)));
    if (next === n || next > 10_000) return Math.min(next, 10_000);
    n = next;
  }
  return n;
}

/**
 * The verdict under another practical-equivalence margin: the interval stays, the outcome, the p-value, the detectable
 * difference and the text are decided again (so a page can let the user set the margin without recomputing any
 * interval). A "no verdict" only takes the margin. A margin in points (failure share) is not changed by a relative one.
 */
export function withMargin(v: GroupVerdict, margin: number, opts: Pick<VerdictOptions, "lowerIsBetter" | "unit">): GroupVerdict {
  if (!(margin >= 0 && Number.isFinite(margin))) throw new RangeError(`margin must be a number >= 0, not ${margin}`);
  const { estimate, low, high, baselineMean, standardError, df } = v;
  if (v.method === "none" || estimate === null || low === null || high === null || baselineMean === null || standardError === null)
    return { ...v, margin };
  const ratio = v.scale === "ratio";
  const band = bandOf(v, margin);
  const onScale = (x: number) => (ratio ? Math.log(x) : x);
  const [l, h, e] = [onScale(low), onScale(high), onScale(estimate)];
  const insideMargin = l >= -band && h <= band;
  const beyond = l > band || h < -band;
  const candidateHigher = e > 0;
  const better: VerdictOutcome = candidateHigher !== opts.lowerIsBetter ? "candidate-better" : "baseline-better";
  const outcome: VerdictOutcome = insideMargin ? "equivalent" : beyond ? better : "inconclusive";
  // The test of "no difference beyond the margin" in the estimate's direction, two-sided: p < 1 - level exactly when
  // the t-interval lies beyond the margin.
  const tStat = standardError > 0 ? (Math.abs(e) - band) / standardError : Math.abs(e) > band ? Infinity : 0;
  const pValue = Math.min(1, 2 * (1 - studentTCdf(tStat, df ?? 1e6)));
  const detect = detectableOnScale(v);
  const relative = (x: number) => (ratio ? Math.exp(x) - 1 : v.marginUnit === "points" ? x : baselineMean > 0 ? x / baselineMean : 0);
  const perRun = perRunVarianceOf(v);
  const runsNeeded = perRun === null ? null : runsNeededFor(band, perRun, v.level);
  const decided: GroupVerdict = {
    ...v,
    margin,
    outcome,
    pValue,
    adjustedPValue: pValue,
    family: null,
    familySize: 1,
    detectable: relative(detect),
    runsNeeded,
    significant: v.scope === "between-configurations" && (outcome === "candidate-better" || outcome === "baseline-better"),
  };
  return { ...decided, text: verdictText(decided, opts) };
}

function marginSaid(v: GroupVerdict): string {
  return v.marginUnit === "points" ? `+-${fmt(v.margin)} points` : `+-${fmt(v.margin * 100)}%`;
}

/** The verdict in words: the outcome, then the numbers it rests on. */
export function verdictText(v: GroupVerdict, opts: Pick<VerdictOptions, "unit" | "lowerIsBetter">): string {
  if (v.estimate === null || v.low === null || v.high === null) return v.text;
  const ratio = v.scale === "ratio";
  const unit = opts.unit ? ` ${opts.unit}` : "";
  const [na, nb] = v.samples;
  const n = v.basis === "seconds" ? `1 run a side (${na} vs ${nb} s)` : `n = ${na} vs ${nb} runs`;
  const est = ratio ? `${v.candidate} / ${v.baseline} = ${fmt(v.estimate)}` : `${v.candidate} - ${v.baseline} = ${fmt(v.estimate)}${unit}`;
  const range = ratio ? `${fmt(v.low)} to ${fmt(v.high)}` : `${fmt(v.low)} to ${fmt(v.high)}${unit}`;
  const blocks = v.blockLengths ? `, blocks of ${v.blockLengths[0]} and ${v.blockLengths[1]} s` : "";
  const seeded = v.seed !== null ? `, seed ${v.seed}, ${v.resamples} resamples` : "";
  const cv = v.runToRunCv !== null ? `, widened by a stated run-to-run CV of ${pct(v.runToRunCv)}` : "";
  const holm =
    v.familySize > 1 && v.adjustedPValue !== null ? `, Holm-adjusted p ${fmt(v.adjustedPValue)} over ${v.familySize} verdicts` : "";
  const detail = `${est}, ${Math.round(v.level * 100)}% CI ${range}; ${METHOD_LABELS[v.method]}${blocks}${seeded}${cv}, ${n}, margin ${marginSaid(v)}${holm}`;
  const detectable = v.detectable === null ? "" : v.marginUnit === "points" ? `${fmt(v.detectable)} points` : pct(v.detectable);
  const needed =
    v.runsNeeded === null
      ? v.scope === "within-run"
        ? "repeat each configuration (or state a run-to-run CV) to judge configurations"
        : "a margin of 0 cannot be detected"
      : `about ${v.runsNeeded} runs a side would detect a difference of the margin`;
  const candidateHigher = v.estimate > (ratio ? 1 : 0);
  const winner = candidateHigher !== opts.lowerIsBetter ? v.candidate : v.baseline;
  const band = bandOf(v, v.margin);
  const [l, h] = ratio ? [Math.log(v.low), Math.log(v.high)] : [v.low, v.high];
  const beyondAlone = l > band || h < -band;
  let head: string;
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
        beyondAlone && v.scope === "between-configurations"
          ? `inconclusive on ${v.metric}: ${winner} is better beyond the margin alone, but not after Holm's correction`
          : `inconclusive on ${v.metric}: these samples could detect about ${detectable}; ${needed}`;
  }
  const prefix = v.scope === "within-run" && !head.startsWith("within-run") ? "within-run, " : "";
  return `${prefix}${head} (${detail})`;
}
