import { bootstrapDifference, type DifferenceInterval } from "./bootstrap";

/** Where the samples of a comparison came from. */
export type SampleBasis = "repetitions" | "time-windows";

export interface ComparedGroup {
  label: string;
  /** One value per repetition (a study cell), or per time window when there is a single run. */
  values: number[];
  basis: SampleBasis;
}

export interface MetricVerdict extends DifferenceInterval {
  metric: string;
  baseline: string;
  candidate: string;
  basis: SampleBasis;
  /** How many samples each side had (runs, or time windows). */
  samples: [number, number];
  /** A sentence for people: which is better, by how much, or no significant difference. */
  text: string;
}

/**
 * The verdict on one metric between two groups: the difference with its 95%
 * bootstrap interval, and "no significant difference" when the interval spans zero.
 * `lowerIsBetter` says which direction wins (latency: yes; throughput, goodput: no).
 */
export function verdict(
  metric: string,
  baseline: ComparedGroup,
  candidate: ComparedGroup,
  opts: { lowerIsBetter: boolean; unit?: string; seed?: number },
): MetricVerdict {
  const basis: SampleBasis = baseline.basis === "repetitions" && candidate.basis === "repetitions" ? "repetitions" : "time-windows";
  const ci = bootstrapDifference(baseline.values, candidate.values, { seed: opts.seed });
  const unit = opts.unit ? ` ${opts.unit}` : "";
  const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3));
  const range = `95% CI ${fmt(ci.low)} to ${fmt(ci.high)}${unit}, over ${basis === "repetitions" ? "repetitions" : "time windows of single runs"}`;
  let text: string;
  if (!ci.significant) text = `no significant difference in ${metric} (${range})`;
  else {
    const candidateBetter = opts.lowerIsBetter ? ci.difference < 0 : ci.difference > 0;
    text = `${candidateBetter ? candidate.label : baseline.label} is better on ${metric}: ${candidate.label} - ${baseline.label} = ${fmt(ci.difference)}${unit} (${range})`;
  }
  return {
    ...ci,
    metric,
    baseline: baseline.label,
    candidate: candidate.label,
    basis,
    samples: [baseline.values.length, candidate.values.length],
    text,
  };
}
