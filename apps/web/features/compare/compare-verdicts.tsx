"use client";

// The verdicts: per metric and pair (each group against the first; in a study,
// each target against the first within its workload): the difference with its 95%
// interval, the method that drew it (Student's/Welch's t between repetitions, a
// moving-block bootstrap within single runs), n per side, the equivalence margin,
// and the verdict in words: better beyond the margin, equivalent, inconclusive
// (with what the runs could have detected), or within-run for single runs. Above
// the table: the family, "k of m significant" after Holm's correction.
import { familySummary, metricOf, type MetricVerdict } from "@opsbench/core";
import type { CompareData } from "@/features/compare/compare-data";
import { comparisonTable } from "@/lib/export/comparison-tables";
import { ExportTableButtons } from "@/components/export-buttons";

const unitOf = (metric: string) => metricOf(metric)?.unit ?? "";
export const verdictTestId = (metric: string) => `verdict-${metric.replace(/[^A-Za-z0-9]+/g, "-")}`;

const fmt = (v: number, unit: string) => {
  const d = unit === "req/s" ? 1 : 2;
  return `${v >= 0 ? "+" : "−"}${Math.abs(v).toFixed(d)}`;
};

/** The method and the samples a verdict rests on, without what only its own row has (block lengths). */
function basisSaid(v: MetricVerdict): string {
  const [a, b] = v.samples;
  if (v.basis === "runs") return `${v.methodLabel} over repetitions: n = ${a} vs ${b} runs, each run one sample`;
  if (v.basis === "seconds")
    return v.scope === "within-run"
      ? `${v.methodLabel}: one run per group (${a} vs ${b} s): within-run, what these two runs showed, never "significant" between configurations; repeat the runs or state a run-to-run CV`
      : `${v.methodLabel}: one run per group (${a} vs ${b} s), widened by a stated run-to-run CV of ${((v.runToRunCv ?? 0) * 100).toFixed(1)}%`;
  return "one group has repetitions, the other a single run: not compared";
}

const blocksSaid = (v: MetricVerdict) => (v.blockLengths ? `blocks of ${v.blockLengths[0]} and ${v.blockLengths[1]} s` : "");

/** The basis most rows share: said once above the table, so the rows say only what differs. */
function commonBasis(vs: readonly MetricVerdict[]): string | null {
  const counts = new Map<string, number>();
  for (const v of vs) if (v.method !== "none") counts.set(basisSaid(v), (counts.get(basisSaid(v)) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

/** A small forest plot: zero, the interval, the observed difference. */
function IntervalPlot({ v }: { v: MetricVerdict }) {
  if (v.low === null || v.high === null || v.estimate === null) return null;
  const W = 140;
  const span = Math.max(Math.abs(v.low), Math.abs(v.high), Math.abs(v.estimate)) * 1.15 || 1;
  // A tenth of a pixel is as fine as it can be drawn.
  const x = (d: number) => Math.round((W / 2 + (d / span) * (W / 2 - 4)) * 10) / 10;
  const color = v.significant ? "#2563eb" : "#a1a1aa";
  return (
    <svg width={W} height={16} aria-hidden className="inline-block align-middle">
      <line x1={W / 2} x2={W / 2} y1={1} y2={15} stroke="#52525b" strokeDasharray="2 2" />
      <line x1={x(v.low)} x2={x(v.high)} y1={8} y2={8} stroke={color} strokeWidth={3} strokeLinecap="round" />
      <circle cx={x(v.estimate)} cy={8} r={3.5} fill="#fff" stroke={color} strokeWidth={1.5} />
    </svg>
  );
}

const marginSaid = (v: MetricVerdict) => (v.marginUnit === "points" ? `±${v.margin} points` : `±${(v.margin * 100).toFixed(0)}%`);
const detectableSaid = (v: MetricVerdict) =>
  v.detectable === null ? "?" : v.marginUnit === "points" ? `${v.detectable.toFixed(2)} points` : `${(v.detectable * 100).toFixed(1)}%`;

function VerdictSaid({ v }: { v: MetricVerdict }) {
  const winner = v.outcome === "candidate-better" ? v.candidate : v.baseline;
  switch (v.outcome) {
    case "no-verdict":
      return <span className="text-amber-700">no verdict: {v.reason}</span>;
    case "candidate-better":
    case "baseline-better":
      if (v.scope === "within-run")
        return (
          <span className="text-amber-800">
            <span className="rounded bg-amber-50 px-1 ring-1 ring-amber-300">within-run</span> {winner}&apos;s run was better beyond{" "}
            {marginSaid(v)}
          </span>
        );
      if (!v.significant)
        return (
          <span className="text-zinc-600">
            inconclusive: {winner} better beyond {marginSaid(v)} alone, not after Holm&apos;s correction
          </span>
        );
      return (
        <span className="font-medium text-blue-700">
          {winner} is better beyond {marginSaid(v)}
        </span>
      );
    case "equivalent":
      return (
        <span className="text-zinc-600">
          {v.scope === "within-run" ? "within-run: " : ""}equivalent (interval within {marginSaid(v)})
        </span>
      );
    default:
      return (
        <span className="text-zinc-500">
          {v.scope === "within-run" ? "within-run: " : ""}inconclusive: could detect {detectableSaid(v)}
          {v.runsNeeded !== null ? `; about ${v.runsNeeded} runs a side would detect ${marginSaid(v)}` : ""}
        </span>
      );
  }
}

export function CompareVerdicts({ data, exportable = true }: { data: CompareData; exportable?: boolean }) {
  const vs = data.verdicts;
  const common = commonBasis(vs);
  const family = familySummary(vs);
  return (
    <section data-testid="cmp-verdicts" className="break-inside-avoid rounded-md border border-zinc-200 bg-white">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-zinc-200 px-3 py-2">
        <h2 className="text-xs font-medium text-zinc-700">
          {vs.some((v) => v.family?.startsWith("targets within each workload")) ? (
            <>Verdicts: targets within each workload, against the workload&apos;s first (difference, 95% interval)</>
          ) : (
            <>
              Verdicts: each group against <span className="font-semibold">{data.groups[0]?.label ?? "—"}</span> (difference, 95% interval)
            </>
          )}
        </h2>
        {exportable && <ExportTableButtons name="verdicts" table={() => comparisonTable(data, "verdicts")} />}
      </div>
      {vs.length > 0 && (
        <p
          data-testid="cmp-verdict-family"
          data-tested={family.tested}
          data-significant={family.significant}
          className="border-b border-zinc-100 px-3 py-1.5 text-[11px] text-zinc-600"
        >
          <span className="font-medium">Family:</span> {family.text}
        </p>
      )}
      {common && (
        <p data-testid="cmp-verdict-method" className="border-b border-zinc-100 px-3 py-1.5 text-[11px] text-zinc-600">
          <span className="font-medium">Method:</span> {common}
          {vs.some((v) => v.basis === "seconds") && (
            <span className="ml-1 rounded bg-amber-50 px-1 text-amber-800 ring-1 ring-amber-300">single runs</span>
          )}
        </p>
      )}
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
                <th className="px-3 py-1.5 font-medium">{common ? "Also" : "Basis"}</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100">
              {vs.map((v) => {
                const unit = unitOf(v.metric);
                return (
                  <tr
                    key={`${v.metric}:${v.candidate}`}
                    data-testid={verdictTestId(v.metric)}
                    data-metric={v.metric}
                    data-candidate={v.candidate}
                    data-baseline={v.baseline}
                    data-difference={v.estimate ?? undefined}
                    data-low={v.low ?? undefined}
                    data-high={v.high ?? undefined}
                    data-significant={String(v.significant)}
                    data-outcome={v.outcome}
                    data-scope={v.scope}
                    data-adjusted-p={v.adjustedPValue ?? undefined}
                    data-method={v.method}
                    data-basis={v.basis}
                    data-margin={v.margin}
                    data-margin-unit={v.marginUnit}
                    data-seed={v.seed ?? undefined}
                    data-resamples={v.resamples ?? undefined}
                    data-samples={v.samples.join(",")}
                    data-enough={String(v.outcome !== "no-verdict")}
                    title={v.text}
                  >
                    <td className="px-3 py-1.5 font-mono font-medium">{v.metric}</td>
                    <td className="whitespace-nowrap px-3 py-1.5 font-mono" title={`${v.candidate} − ${v.baseline}`}>
                      {v.candidate}
                    </td>
                    <td className="whitespace-nowrap px-3 py-1.5 text-right font-mono tabular-nums">
                      {v.estimate === null ? "—" : `${fmt(v.estimate, unit)} ${unit}`}
                    </td>
                    <td className="whitespace-nowrap px-3 py-1.5 text-right font-mono tabular-nums" data-testid="verdict-ci">
                      {v.low === null || v.high === null ? "—" : `[${fmt(v.low, unit)}, ${fmt(v.high, unit)}] ${unit}`}
                    </td>
                    <td className="px-3 py-1.5">
                      <IntervalPlot v={v} />
                    </td>
                    <td className="px-3 py-1.5" data-testid="verdict-text">
                      <VerdictSaid v={v} />
                    </td>
                    <td className="max-w-md px-3 py-1.5 text-[11px] text-zinc-500" data-testid="verdict-basis">
                      {[basisSaid(v) === common || v.method === "none" ? "" : basisSaid(v), blocksSaid(v)].filter(Boolean).join("; ")}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <p className="border-t border-zinc-100 px-3 py-1.5 text-[11px] text-zinc-500">
        Better: the whole interval lies beyond the margin (±
        {((vs.find((v) => v.marginUnit === "relative")?.margin ?? 0.05) * 100).toFixed(0)}% of the baseline; the failure share ±
        {vs.find((v) => v.marginUnit === "points")?.margin ?? 1} percentage points) and Holm&apos;s correction over the family keeps it;
        equivalent: the whole interval lies inside it; otherwise inconclusive, with the smallest difference the runs could have detected
        (80% power). Percentiles are whole-run percentiles of the merged histograms. Between repetitions: Student&apos;s t (Welch&apos;s
        when n differ; a seeded bootstrap from 30 runs a side); single runs: a moving-block bootstrap over their seconds, within-run unless
        a run-to-run CV is stated.
      </p>
    </section>
  );
}
