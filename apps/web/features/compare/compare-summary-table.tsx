"use client";

// Each group's merged result (all its runs' histograms merged) and each run's own; under each group after the
// first, its difference from the first group in percent (candidate vs baseline), and one validity banner per group.
import Link from "next/link";
import type { CompareData } from "@/features/compare/compare-data";
import { comparisonTable, runNumbers } from "@/lib/export/comparison-tables";
import { flagsOfGroup, flagsOfRun, successFirstLatency, type RunSummary } from "@opsbench/core";
import { fmtCount, fmtMs, fmtPercent, fmtRps } from "@/lib/format";
import { groupColor } from "@/components/charts/palette";
import { GroupValidityBanner } from "./compare-flags";
import { observedRelative, relativeSaid } from "./compare-verdict-card";
import { ExportTableButtons } from "@/components/export-buttons";
import { StatusBadge } from "@/components/status-badge";
import { ScrollX } from "@/components/scroll-x";

const th = "th-cell";
const num = "td-num-sm";

type SummaryNumbers = Pick<RunSummary, "requests" | "failures" | "goodput" | "rps" | "latencyMs" | "successLatencyMs">;

/** The numbers of a group's merged result or of one run: requests to max latency, one cell each. */
function SummaryCells({ summary: s }: { summary: SummaryNumbers | null | undefined }) {
  // Successful responses first; all responses' p99 after them.
  const ok = s ? successFirstLatency(s) : undefined;
  return (
    <>
      <td className={num}>{fmtCount(s?.requests)}</td>
      <td className={`${num} ${s && s.failures > 0 ? "text-red-600" : ""}`}>{fmtCount(s?.failures)}</td>
      <td className={num}>{fmtPercent(s?.goodput)}</td>
      <td className={num}>{fmtRps(s?.rps)}</td>
      <td className={num}>{fmtMs(ok?.p50)}</td>
      <td className={num}>{fmtMs(ok?.p95)}</td>
      <td className={num}>{fmtMs(ok?.p99)}</td>
      <td className={num}>{fmtMs(ok?.max)}</td>
      <td className={num}>{fmtMs(s?.latencyMs.p99)}</td>
    </>
  );
}

/** A candidate group's merged numbers relative to the baseline's (its value / the baseline's, less 1), cell by cell. */
function RelativeRow({
  baseline: a,
  candidate: b,
  label,
}: {
  baseline: SummaryNumbers | null | undefined;
  candidate: SummaryNumbers | null | undefined;
  label: string;
}) {
  const [oa, ob] = [a ? successFirstLatency(a) : undefined, b ? successFirstLatency(b) : undefined];
  const cell = (x: number | null | undefined, y: number | null | undefined) => {
    const r = observedRelative(x ?? null, y ?? null);
    return <td className={`${num} text-zinc-600`}>{r === null ? "—" : relativeSaid(r)}</td>;
  };
  return (
    <tr data-testid="cmp-relative-row" className="text-2xs italic">
      <td className="py-0.5 pl-6 pr-2 text-zinc-500">vs {label}, %</td>
      <td />
      {cell(a?.requests, b?.requests)}
      {cell(a?.failures, b?.failures)}
      {cell(a?.goodput, b?.goodput)}
      {cell(a?.rps, b?.rps)}
      {cell(oa?.p50, ob?.p50)}
      {cell(oa?.p95, ob?.p95)}
      {cell(oa?.p99, ob?.p99)}
      {cell(oa?.max, ob?.max)}
      {cell(a?.latencyMs.p99, b?.latencyMs.p99)}
      <td />
    </tr>
  );
}

export function CompareSummaryTable({
  data,
  exportable = true,
  linkRuns = false,
}: {
  data: CompareData;
  exportable?: boolean;
  linkRuns?: boolean;
}) {
  return (
    <section data-testid="cmp-summary" className="break-inside-avoid rounded-md border border-zinc-200 bg-white">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-zinc-200 px-3 py-2">
        <h2 className="text-xs font-medium text-zinc-700">Results: each group merged (bold) and each run</h2>
        {exportable && (
          <span className="inline-flex items-center gap-2 text-2xs text-zinc-500">
            groups <ExportTableButtons name="summary" table={() => comparisonTable(data, "summary")} />
            runs <ExportTableButtons name="runs" table={() => comparisonTable(data, "runs")} />
          </span>
        )}
      </div>
      <ScrollX>
        <table className="w-full text-xs">
          <thead className="border-b border-zinc-200 bg-zinc-50">
            <tr>
              <th className={th}>Group / run</th>
              <th className={th}>Status</th>
              <th className={`${th} text-right`}>Requests</th>
              <th className={`${th} text-right`}>Failed</th>
              <th className={`${th} text-right`}>Goodput %</th>
              <th className={`${th} text-right`}>req/s</th>
              <th className={`${th} text-right`} title="latency of successful responses">
                p50 ms
              </th>
              <th className={`${th} text-right`}>p95 ms</th>
              <th className={`${th} text-right`}>p99 ms</th>
              <th className={`${th} text-right`} title="latency of successful responses">
                max ms
              </th>
              <th className={`${th} text-right`} title="p99 of every response, failed ones included">
                p99 all ms
              </th>
              <th className={th}>Validity</th>
            </tr>
          </thead>
          {data.groups.map((g, gi) => {
            const s = g.merged;
            const numbers = runNumbers(g);
            return (
              <tbody key={gi} className="border-b border-zinc-200">
                <tr data-testid="cmp-group-row" data-group={gi} className="bg-zinc-50/60 font-semibold">
                  <td className="px-2 py-1">
                    <span className="inline-flex items-center gap-1.5">
                      <span className="h-2.5 w-2.5 shrink-0 rounded-sm" style={{ background: groupColor(gi) }} />
                      <span className="font-mono">{g.label}</span>
                      <span className="font-normal text-zinc-500">
                        {g.target ? `${g.target.kind}` : "imported"} · {g.runs.length} run{g.runs.length === 1 ? "" : "s"}
                      </span>
                    </span>
                  </td>
                  <td className="px-2 py-1 text-2xs font-normal text-zinc-500">merged</td>
                  <SummaryCells summary={s} />
                  <td className="px-2 py-1 font-normal" />
                </tr>
                {gi > 0 && <RelativeRow baseline={data.groups[0]?.merged} candidate={s} label={data.groups[0]?.label ?? ""} />}
                {(flagsOfGroup(g).length > 0 || g.runs.some((r) => flagsOfRun(r).length > 0)) && (
                  <tr data-testid="cmp-group-validity" data-group={gi} className="bg-amber-50/70">
                    <td colSpan={12} className="px-2 py-1">
                      <GroupValidityBanner
                        groupFlags={flagsOfGroup(g)}
                        runs={g.runs.map((r) => ({ number: numbers.get(r.id) ?? 0, flags: flagsOfRun(r) }))}
                        testId="group-flags"
                      />
                    </td>
                  </tr>
                )}
                {g.runs.map((r) => {
                  const rs = r.summary;
                  return (
                    <tr key={r.id} data-testid="cmp-run-row" data-run-id={r.id} className="text-zinc-700">
                      <td className="py-1 pl-6 pr-2 font-mono">
                        #{numbers.get(r.id)}{" "}
                        {linkRuns ? (
                          <Link href={`/runs/${r.id}`} className="text-blue-600 hover:underline" title={r.id}>
                            {r.id.slice(0, 8)}
                          </Link>
                        ) : (
                          <span className="text-zinc-500" title={r.id}>
                            {r.id.slice(0, 8)}
                          </span>
                        )}
                      </td>
                      <td className="px-2 py-1">
                        <StatusBadge status={r.status} />
                      </td>
                      <SummaryCells summary={rs} />
                      <td
                        className="px-2 py-1 text-2xs text-amber-800"
                        title={flagsOfRun(r)
                          .map((f) => f.message)
                          .join("\n")}
                      >
                        {flagsOfRun(r).length > 0 ? "⚠ see group" : ""}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            );
          })}
        </table>
      </ScrollX>
    </section>
  );
}
