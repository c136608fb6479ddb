// The primary metric's verdict as a card, shown before anything else: the outcome
// in words, the interval, and the power line (what these runs' rule can find of
// the stated effect, and the runs a side it would take), all from the verdict's own
// fields. The comparison pages and the study page show the same card.
import { metricOf, type MetricVerdict } from "@opsbench/core";

/** A relative amount as a percent: "10%", "2.5%". */
const pct = (x: number) => `${Number((x * 100).toFixed(Math.abs(x) < 0.1 ? 1 : 0))}%`;

/** The margin as the rows and the card say it: "±5%", "±50% of the odds", "±1 points". */
export function marginSaid(v: MetricVerdict): string {
  if (v.marginUnit === "points") return `±${v.margin} points`;
  return v.scale === "log-odds" ? `±${pct(v.margin)} of the odds` : `±${pct(v.margin)}`;
}

/** The stated effect and a detectable difference in the margin's unit. */
const amountSaid = (v: MetricVerdict, x: number) => (v.marginUnit === "points" ? `${x.toFixed(2)}-point` : pct(x));

/**
 * The power line: "With 3 vs 3 runs, this comparison finds a true 10% difference in p95 42% of the time; about 14 runs
 * a side would find it 80% of the time (80% from a 21% difference)". Within-run and "no verdict" say why there is none.
 */
export function powerLine(v: MetricVerdict): string {
  if (v.outcome === "no-verdict") return `no power to state: ${v.reason ?? "no interval"}`;
  if (v.scope === "within-run") return "one run a side: repeat the runs or state a run-to-run CV to judge configurations";
  const [a, b] = v.samples;
  const runs = v.basis === "seconds" ? "one run a side (widened by the stated run-to-run CV)" : `${a} vs ${b} runs`;
  const effect = amountSaid(v, v.effect);
  const found = v.power === null ? "" : ` ${Math.round(v.power * 100)}% of the time`;
  const needed =
    v.runsNeeded !== null
      ? `about ${v.runsNeeded} runs a side would find it 80% of the time`
      : v.effect <= v.margin
        ? `a ${effect} difference is within the ${marginSaid(v)} margin, never "better"`
        : "more than 1,000 runs a side would be needed for 80%";
  const detectable = v.detectable === null ? "" : ` (80% from a ${amountSaid(v, v.detectable)} difference)`;
  return `With ${runs}, this comparison finds a true ${effect} difference in ${v.metric}${found}; ${needed}${detectable}`;
}

/** The outcome in words, as the card heads it. */
export function outcomeSaid(v: MetricVerdict): string {
  const winner = v.outcome === "candidate-better" ? v.candidate : v.baseline;
  const margin = `the ${marginSaid(v)} margin`;
  switch (v.outcome) {
    case "no-verdict":
      return `no verdict on ${v.metric}: ${v.reason ?? "no interval"}`;
    case "candidate-better":
    case "baseline-better":
      if (v.scope === "within-run") return `within-run: ${winner}'s run was better on ${v.metric} beyond ${margin} (two single runs)`;
      return v.significant
        ? `${winner} is better on ${v.metric} beyond ${margin}`
        : `inconclusive on ${v.metric}: ${winner} better beyond ${margin} alone, not after Holm's correction`;
    case "equivalent":
      return `${v.scope === "within-run" ? "within-run: " : ""}equivalent on ${v.metric}: the interval lies within ${margin}`;
    default:
      return `${v.scope === "within-run" ? "within-run: " : ""}inconclusive on ${v.metric}: the interval spans ${margin}`;
  }
}

const signed = (x: number, digits: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(digits)}`;
const ratio = (x: number) => `${x >= 10 ? x.toFixed(1) : x.toFixed(2)}x`;

/** The estimate and its interval in the verdict's scale: a difference in the metric's unit, or an odds ratio. */
export function intervalSaid(v: MetricVerdict): { estimate: string; interval: string } {
  if (v.estimate === null || v.low === null || v.high === null) return { estimate: "—", interval: "—" };
  if (v.scale !== "difference")
    return {
      estimate: `${v.scale === "log-odds" ? "odds ratio " : ""}${ratio(v.estimate)}`,
      interval: `[${ratio(v.low)}, ${ratio(v.high)}]`,
    };
  const unit = metricOf(v.metric)?.unit ?? "";
  const digits = unit === "req/s" ? 1 : 2;
  return { estimate: `${signed(v.estimate, digits)} ${unit}`, interval: `[${signed(v.low, digits)}, ${signed(v.high, digits)}] ${unit}` };
}

const toneOf = (v: MetricVerdict) =>
  v.significant
    ? "border-blue-300 bg-blue-50/60"
    : v.scope === "within-run" || v.outcome === "no-verdict"
      ? "border-amber-300 bg-amber-50/60"
      : "border-zinc-300 bg-zinc-50";

/** The primary metric's verdict for one pair. */
export function PrimaryVerdictCard({ v }: { v: MetricVerdict }) {
  const { estimate, interval } = intervalSaid(v);
  const weak = v.power !== null && v.power < 0.8;
  return (
    <div
      data-testid="cmp-primary-card"
      data-role="primary"
      data-metric={v.metric}
      data-candidate={v.candidate}
      data-baseline={v.baseline}
      data-outcome={v.outcome}
      data-significant={String(v.significant)}
      data-power={v.power ?? undefined}
      data-runs-needed={v.runsNeeded ?? undefined}
      className={`rounded-md border px-3 py-2 ${toneOf(v)}`}
    >
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <span className="text-[10px] text-zinc-500">
          <span className="font-medium uppercase tracking-wide">primary · {v.metric}</span> · {v.candidate} vs {v.baseline}
        </span>
      </div>
      <p
        data-testid="cmp-primary-outcome"
        className={`mt-0.5 text-sm ${v.significant ? "font-semibold text-blue-800" : "font-medium text-zinc-800"}`}
      >
        {outcomeSaid(v)}
      </p>
      <p data-testid="cmp-primary-interval" className="mt-0.5 font-mono text-xs tabular-nums text-zinc-700">
        {v.candidate} − {v.baseline}: {estimate}, {Math.round(v.level * 100)}% CI {interval}
        {v.familySize > 1 ? ` · Holm over ${v.familySize}` : ""}
      </p>
      <p data-testid="cmp-power-line" className={`mt-1 text-xs ${weak || v.scope === "within-run" ? "text-amber-800" : "text-zinc-600"}`}>
        {powerLine(v)}
      </p>
    </div>
  );
}
