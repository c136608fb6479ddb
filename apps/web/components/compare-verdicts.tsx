"use client";

// The verdicts: per metric, each group against the first (the baseline): the
// difference of means with its 95% bootstrap interval, whether it is significant,
// and what the interval was drawn from, said plainly.
import type { MetricVerdict } from "@opsbench/core";
import type { CompareData } from "@/app/compare/compare-data";
import { comparisonTable, RUN_METRICS } from "@/lib/export/comparison-tables";
import { ExportTableButtons } from "./export-buttons";

const unitOf = (metric: string) => RUN_METRICS.find((m) => m.key === metric)?.unit ?? "";
const lowerIsBetter = (metric: string) => unitOf(metric) === "ms";
export const verdictTestId = (metric: string) => `verdict-${metric.replace(/[^A-Za-z0-9]+/g, "-")}`;

const fmt = (v: number, unit: string) => {
  const d = unit === "req/s" ? 1 : 2;
  return `${v >= 0 ? "+" : "−"}${Math.abs(v).toFixed(d)}`;
};

function basisSaid(v: MetricVerdict, [a, b]: readonly [number, number]): string {
  return v.basis === "repetitions"
    ? `bootstrap over repetitions: ${a} vs ${b} runs, each run one sample`
    : `bootstrap over 1 s time windows of single runs (${a} vs ${b} windows): one run per group, so this says how steady the runs were, not how repeatable; repeat the runs for a firmer answer`;
}

/** A small forest plot: zero, the interval, the observed difference. */
function IntervalPlot({ v }: { v: MetricVerdict }) {
  const W = 140;
  const span = Math.max(Math.abs(v.low), Math.abs(v.high), Math.abs(v.difference)) * 1.15 || 1;
  const x = (d: number) => W / 2 + (d / span) * (W / 2 - 4);
  const color = v.significant ? "#2563eb" : "#a1a1aa";
  return (
    <svg width={W} height={16} aria-hidden className="inline-block align-middle">
      <line x1={W / 2} x2={W / 2} y1={1} y2={15} stroke="#52525b" strokeDasharray="2 2" />
      <line x1={x(v.low)} x2={x(v.high)} y1={8} y2={8} stroke={color} strokeWidth={3} strokeLinecap="round" />
      <circle cx={x(v.difference)} cy={8} r={3.5} fill="#fff" stroke={color} strokeWidth={1.5} />
    </svg>
  );
}

export function CompareVerdicts({ data, exportable = true }: { data: CompareData; exportable?: boolean }) {
  const vs = data.verdicts;
  return (
    <section data-testid="cmp-verdicts" className="break-inside-avoid rounded-md border border-zinc-200 bg-white">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-zinc-200 px-3 py-2">
        <h2 className="text-xs font-medium text-zinc-700">
          Verdicts: each group against <span className="font-semibold">{data.groups[0]?.label ?? "—"}</span> (difference of means, 95%
          percentile-bootstrap interval)
        </h2>
        {exportable && <ExportTableButtons name="verdicts" table={() => comparisonTable(data, "verdicts")} />}
      </div>
      {vs.length === 0 ? (
        <p className="px-3 py-2 text-xs text-zinc-400">Verdicts need two groups with results.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-xs">
            <thead className="border-b border-zinc-200 bg-zinc-50 text-left text-[11px] uppercase tracking-wide text-zinc-500">
              <tr>
                <th className="px-3 py-1.5 font-medium">Metric</th>
                <th className="px-3 py-1.5 font-medium">Group</th>
                <th className="px-3 py-1.5 text-right font-medium">Difference</th>
                <th className="px-3 py-1.5 text-right font-medium">95% CI</th>
                <th className="px-3 py-1.5 font-medium">
                  <span className="sr-only">interval</span>
                </th>
                <th className="px-3 py-1.5 font-medium">Verdict</th>
                <th className="px-3 py-1.5 font-medium">Basis</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100">
              {vs.map((v) => {
                const unit = unitOf(v.metric);
                const candidateBetter = lowerIsBetter(v.metric) ? v.difference < 0 : v.difference > 0;
                const winner = candidateBetter ? v.candidate : v.baseline;
                const counts = v.samples;
                // One sample a side has no spread: its "interval" is a point, not evidence.
                const enough = counts[0] >= 2 && counts[1] >= 2;
                return (
                  <tr
                    key={`${v.metric}:${v.candidate}`}
                    data-testid={verdictTestId(v.metric)}
                    data-metric={v.metric}
                    data-candidate={v.candidate}
                    data-baseline={v.baseline}
                    data-difference={v.difference}
                    data-low={v.low}
                    data-high={v.high}
                    data-significant={String(v.significant)}
                    data-basis={v.basis}
                    data-seed={v.seed}
                    data-resamples={v.resamples}
                    data-samples={counts.join(",")}
                    data-enough={String(enough)}
                    title={v.text}
                  >
                    <td className="px-3 py-1.5 font-mono font-medium">{v.metric}</td>
                    <td className="whitespace-nowrap px-3 py-1.5 font-mono" title={`${v.candidate} − ${v.baseline}`}>
                      {v.candidate}
                    </td>
                    <td className="whitespace-nowrap px-3 py-1.5 text-right font-mono tabular-nums">
                      {fmt(v.difference, unit)} {unit}
                    </td>
                    <td className="whitespace-nowrap px-3 py-1.5 text-right font-mono tabular-nums" data-testid="verdict-ci">
                      [{fmt(v.low, unit)}, {fmt(v.high, unit)}] {unit}
                    </td>
                    <td className="px-3 py-1.5">
                      <IntervalPlot v={v} />
                    </td>
                    <td className="px-3 py-1.5" data-testid="verdict-text">
                      {!enough ? (
                        <span className="text-amber-700">too few samples for a verdict</span>
                      ) : v.significant ? (
                        <span className="font-medium text-blue-700">{winner} is better</span>
                      ) : (
                        <span className="text-zinc-500">no significant difference</span>
                      )}
                    </td>
                    <td className="max-w-md px-3 py-1.5 text-[11px] text-zinc-500">
                      {basisSaid(v, counts)}
                      {v.basis === "time-windows" && (
                        <span className="ml-1 rounded bg-amber-50 px-1 text-amber-800 ring-1 ring-amber-300">time windows</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <p className="border-t border-zinc-100 px-3 py-1.5 text-[11px] text-zinc-500">
        An interval that spans zero means no significant difference at 95%. Intervals come from {vs[0]?.resamples ?? 4000} bootstrap
        resamples with a recorded seed ({vs[0]?.seed ?? 1}), so they can be recomputed exactly.
      </p>
    </section>
  );
}
