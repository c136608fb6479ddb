"use client";

// The verdicts: the primary metric's first, as a card per pair (compare-verdict-card.tsx:
// the outcome in words, the interval, the power line); then the family, "k of m
// significant" after Holm's correction over the primary metric's pairs; then a
// table of every verdict: the primary rows, and set apart under their own heading
// the descriptive rows (the other metrics: intervals shown, never significant, no
// "better" highlighting). Each row: the difference (an odds ratio for the failure
// share) with its 95% interval, the method (Welch's t between repetitions, one run
// against repetitions, a moving-block bootstrap within single runs), n per side and
// the margin. Rows carry data-role="primary" | "descriptive".
import {
  DEFAULT_EQUIVALENCE_MARGIN,
  DEFAULT_FAILURE_MARGIN,
  familySummary,
  type MetricVerdict,
  metricOf,
  relativeDifference,
  verdictDetail,
} from "@opsbench/core";
import type { ReactNode } from "react";
import type { CompareData } from "@/features/compare/compare-data";
import { comparisonTable } from "@/lib/export/comparison-tables";
import { ExportTableButtons } from "@/components/export-buttons";
import {
  intervalSaid,
  marginSaid,
  observedOf,
  observedRelative,
  PrimaryVerdictCard,
  relativeOfSaid,
  relativeSaid,
} from "./compare-verdict-card";
import { ScrollX } from "@/components/scroll-x";

/** A verdict's observed relative difference (candidate vs baseline, from the groups' merged results), or null. */
type Observed = (v: MetricVerdict) => number | null;

/** The difference relative to the baseline, with its interval ("+12.3% [+4.1%, +20.5%]"; odds for the failure share). */
function relativeCell(v: MetricVerdict, observed?: Observed): string {
  const r = relativeDifference(v);
  // Without an interval (one run a side), what the runs showed, said as such: never a bare dash under a real difference.
  const seen = r ? null : (observed?.(v) ?? null);
  if (!r) return seen === null ? "—" : `${relativeSaid(seen)} observed`;
  return `${relativeOfSaid(r.estimate, r.of)} [${relativeOfSaid(r.low, r.of)}, ${relativeOfSaid(r.high, r.of)}]`;
}

export const verdictTestId = (metric: string) => `verdict-${metric.replace(/[^A-Za-z0-9]+/g, "-")}`;

/** The method and the samples a verdict rests on, without what only its own row has (block lengths). */
function basisSaid(v: MetricVerdict): string {
  const [a, b] = v.samples;
  if (v.method === "single-run-t") return `${v.methodLabel}: n = ${a} vs ${b} runs`;
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

/** A small forest plot: no difference (0, or a ratio of 1 on the log scale), the interval, the observed difference. */
function IntervalPlot({ v }: { v: MetricVerdict }) {
  if (v.low === null || v.high === null || v.estimate === null) return null;
  const onScale = (d: number) => (v.scale === "difference" ? d : Math.log(d));
  const [low, high, estimate] = [onScale(v.low), onScale(v.high), onScale(v.estimate)];
  const span = Math.max(Math.abs(low), Math.abs(high), Math.abs(estimate)) * 1.15 || 1;
  // Percent of the plot's width (styled by .ci-plot in globals.css: spans, not an SVG, to keep long pages light).
  const at = (d: number) => Math.round((50 + (d / span) * 47) * 10) / 10;
  const color = v.significant ? "#2563eb" : v.role === "descriptive" ? "#d4d4d8" : "#a1a1aa";
  return (
    <span aria-hidden className="ci-plot">
      <i style={{ left: `${at(low)}%`, width: `${Math.max(0.5, at(high) - at(low))}%`, background: color }} />
      <b style={{ left: `${at(estimate)}%`, borderColor: color }} />
    </span>
  );
}

const detectableSaid = (v: MetricVerdict) =>
  v.detectable === null ? "?" : v.marginUnit === "points" ? `${v.detectable.toFixed(2)} points` : `${(v.detectable * 100).toFixed(1)}%`;

/** A primary row's verdict in words (its card says it at length). */
function PrimarySaid({ v }: { v: MetricVerdict }) {
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
          {v.scope === "within-run" ? "within-run: " : ""}inconclusive: finds {detectableSaid(v)} 80% of the time
          {v.runsNeeded !== null ? `; about ${v.runsNeeded} runs a side for ${(v.effect * 100).toFixed(0)}%` : ""}
        </span>
      );
  }
}

/**
 * A descriptive row's interval in words: where it lies against the margin, which side is lower, and no claim (no
 * "better", no highlighting: these metrics are not the comparison's question).
 */
function DescriptiveSaid({ v }: { v: MetricVerdict }) {
  if (v.outcome === "no-verdict") return <span>no interval: {v.reason}</span>;
  if (v.estimate === null) return <span>—</span>;
  const higher = v.estimate > (v.scale === "difference" ? 0 : 1) ? v.candidate : v.baseline;
  const where =
    v.outcome === "equivalent"
      ? `interval within ${marginSaid(v)}`
      : v.outcome === "inconclusive"
        ? `interval spans ${marginSaid(v)}`
        : `interval beyond ${marginSaid(v)}, ${higher} higher`;
  return <span>{v.scope === "within-run" ? `within-run: ${where}` : where}</span>;
}

/**
 * A verdict's row. Its data-* attributes are what tests and scrapers read (the rest of a verdict is in the API's
 * answer and the export): the page's HTML has a size bar (docs/performance.md).
 */
function VerdictRow({ v, common, observed }: { v: MetricVerdict; common: string | null; observed?: Observed }) {
  const descriptive = v.role === "descriptive";
  const { estimate, interval } = intervalSaid(v);
  return (
    <tr
      data-testid={verdictTestId(v.metric)}
      data-role={v.role}
      data-metric={v.metric}
      data-candidate={v.candidate}
      data-baseline={v.baseline}
      data-difference={v.estimate ?? undefined}
      data-low={v.low ?? undefined}
      data-high={v.high ?? undefined}
      data-significant={String(v.significant)}
      data-outcome={v.outcome}
      data-scope={v.scope}
      data-scale={v.scale}
      data-method={v.method}
      data-basis={v.basis}
      data-margin={v.margin}
      data-margin-unit={v.marginUnit}
      data-power={v.power ?? undefined}
      data-samples={v.samples.join(",")}
      // The numbers the verdict rests on (its words are in the row): the estimate, interval, method, samples, margin.
      title={verdictDetail(v, { unit: metricOf(v.metric)?.unit })}
      className={descriptive ? "text-zinc-500" : undefined}
    >
      <td className={`px-3 py-1.5 font-mono ${descriptive ? "" : "font-medium"}`}>{v.metric}</td>
      <td className="whitespace-nowrap px-3 py-1.5 font-mono" title={`${v.candidate} − ${v.baseline}`}>
        {v.candidate}
      </td>
      <td className="td-num">{estimate}</td>
      <td className="td-num" data-testid="verdict-relative">
        {relativeCell(v, observed)}
      </td>
      <td className="td-num" data-testid="verdict-ci">
        {interval}
        {v.scale === "log-odds" && (
          <span data-testid="verdict-scale" className="block text-2xs font-sans text-zinc-500">
            odds ratio; margin {marginSaid(v)}
            {v.baselineMean !== null ? `; baseline ${v.baselineMean.toFixed(2)}% failures` : ""}
          </span>
        )}
      </td>
      {/* A descriptive row shows its interval in numbers only: the plot is for the verdicts. */}
      <td className="px-3 py-1.5">{descriptive ? null : <IntervalPlot v={v} />}</td>
      <td className="px-3 py-1.5" data-testid="verdict-text">
        {descriptive ? <DescriptiveSaid v={v} /> : <PrimarySaid v={v} />}
      </td>
      <td className="max-w-md px-3 py-1.5 text-2xs text-zinc-500" data-testid="verdict-basis">
        {[basisSaid(v) === common || v.method === "none" ? "" : basisSaid(v), blocksSaid(v)].filter(Boolean).join("; ")}
      </td>
    </tr>
  );
}

function VerdictTable({
  rows,
  common,
  testId,
  observed,
}: {
  rows: readonly MetricVerdict[];
  common: string | null;
  testId: string;
  observed?: Observed;
}) {
  return (
    <ScrollX>
      <table data-testid={testId} className="w-full text-xs">
        <thead className="border-b border-zinc-200 bg-zinc-50 text-left text-2xs uppercase tracking-wide text-zinc-500">
          <tr>
            <th className="px-3 py-1.5 font-medium">Metric</th>
            <th className="px-3 py-1.5 font-medium">Group</th>
            <th className="px-3 py-1.5 text-right font-medium">Difference</th>
            <th
              className="px-3 py-1.5 text-right font-medium"
              title="candidate vs baseline, relative to the baseline, with its 95% interval"
            >
              Relative
            </th>
            <th className="px-3 py-1.5 text-right font-medium">95% CI</th>
            <th className="px-3 py-1.5 font-medium">
              <span className="sr-only">interval</span>
            </th>
            <th className="px-3 py-1.5 font-medium">Verdict</th>
            <th className="px-3 py-1.5 font-medium">{common ? "Also" : "Basis"}</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">
          {rows.map((v) => (
            <VerdictRow key={`${v.metric}:${v.candidate}`} v={v} common={common} observed={observed} />
          ))}
        </tbody>
      </table>
    </ScrollX>
  );
}

/**
 * The verdicts of a comparison or a study: the primary metric's cards, the family, the primary rows, then the
 * descriptive rows under their own heading. `heading` and `actions` are the section's title line.
 */
export function VerdictsPanel({
  verdicts: vs,
  heading,
  actions,
  testId = "cmp-verdicts",
  observed,
}: {
  verdicts: readonly MetricVerdict[];
  heading: ReactNode;
  actions?: ReactNode;
  testId?: string;
  /** What the groups showed, for rows without an interval (the compare pages; the study page has no groups at hand). */
  observed?: Observed;
}) {
  const primary = vs.filter((v) => v.role === "primary");
  const descriptive = vs.filter((v) => v.role === "descriptive");
  const common = commonBasis(vs);
  const family = familySummary(vs);
  const margin = primary.find((v) => v.scale !== "log-odds")?.margin ?? DEFAULT_EQUIVALENCE_MARGIN;
  const failureMargin = vs.find((v) => v.scale === "log-odds")?.margin ?? DEFAULT_FAILURE_MARGIN;
  return (
    <section data-testid={testId} className="break-inside-avoid rounded-md border border-zinc-200 bg-white">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-zinc-200 px-3 py-2">
        <h2 className="text-xs font-medium text-zinc-700">{heading}</h2>
        {actions}
      </div>
      {vs.length === 0 ? (
        <p className="px-3 py-2 text-xs text-zinc-400">Verdicts need two groups with results.</p>
      ) : (
        <>
          {primary.length > 0 && (
            <div data-testid="cmp-primary-cards" className="grid grid-cols-1 gap-2 border-b border-zinc-100 px-3 py-2 lg:grid-cols-2">
              {primary.map((v) => (
                <PrimaryVerdictCard key={`${v.metric}:${v.baseline}:${v.candidate}`} v={v} />
              ))}
            </div>
          )}
          <p
            data-testid="cmp-verdict-family"
            data-tested={family.tested}
            data-significant={family.significant}
            data-descriptive={family.descriptive}
            className="border-b border-zinc-100 px-3 py-1.5 text-2xs text-zinc-600"
          >
            <span className="font-medium">Family:</span> {family.text}
          </p>
          {common && (
            <p data-testid="cmp-verdict-method" className="border-b border-zinc-100 px-3 py-1.5 text-2xs text-zinc-600">
              <span className="font-medium">Method:</span> {common}
              {vs.some((v) => v.basis === "seconds") && (
                <span className="ml-1 rounded bg-amber-50 px-1 text-amber-800 ring-1 ring-amber-300">single runs</span>
              )}
            </p>
          )}
          {primary.length > 0 && <VerdictTable rows={primary} common={common} testId="cmp-verdicts-primary" observed={observed} />}
          {descriptive.length > 0 && (
            <div data-testid="cmp-verdicts-descriptive" className="border-t-4 border-zinc-100 bg-zinc-50/50">
              <h3 data-testid="cmp-descriptive-heading" className="px-3 pt-2 pb-1 text-2xs font-medium text-zinc-500">
                Descriptive: other metrics (intervals shown, never significant)
              </h3>
              <VerdictTable rows={descriptive} common={common} testId="cmp-verdicts-descriptive-table" observed={observed} />
            </div>
          )}
        </>
      )}
      <p className="border-t border-zinc-100 px-3 py-1.5 text-2xs text-zinc-500">
        The primary metric decides: better when its whole interval lies beyond ±{(margin * 100).toFixed(0)}% and Holm&apos;s correction
        keeps it, equivalent when inside, else inconclusive; the power line is this rule&apos;s chance of finding the stated difference.
        Other metrics are descriptive, never significant. Failure share: odds ratio, margin ±{(failureMargin * 100).toFixed(0)}% of the
        odds. Method and samples: hover a row; docs/statistics.md.
      </p>
    </section>
  );
}

export function CompareVerdicts({ data, exportable = true }: { data: CompareData; exportable?: boolean }) {
  const vs = data.verdicts;
  return (
    <VerdictsPanel
      verdicts={vs}
      observed={(v) => {
        const group = (label: string) => data.groups.find((g) => g.label === label);
        return observedRelative(observedOf(group(v.baseline), v.metric), observedOf(group(v.candidate), v.metric));
      }}
      heading={
        vs.some((v) => v.family?.startsWith("targets within each workload")) ? (
          <>Verdicts: targets within each workload, against the workload&apos;s first (difference, 95% interval)</>
        ) : (
          <>
            Verdicts: each group against <span className="font-semibold">{data.groups[0]?.label ?? "—"}</span> (difference, 95% interval)
          </>
        )
      }
      actions={exportable ? <ExportTableButtons name="verdicts" table={() => comparisonTable(data, "verdicts")} /> : undefined}
    />
  );
}
