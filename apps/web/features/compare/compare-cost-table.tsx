"use client";

// The IoT study's Table 5.45: rows request name x workload, columns targets, each
// cell the cost per 1 M successful requests (a target answering fast failures is not made
// cheaper by them) and per month at the rate measured, the cheapest of the row highlighted
// only when two or more targets of it are priced.
import { perMonthAtMeasuredRate, rankablePriced } from "@opsbench/core";
import type { CompareData } from "@/features/compare/compare-data";
import { comparisonTable, costTable } from "@/lib/export/comparison-tables";
import { fmtCount, fmtMoney, fmtMs } from "@/lib/format";
import { ExportTableButtons } from "@/components/export-buttons";
import { ScrollX } from "@/components/scroll-x";

export function CompareCostTable({ data, exportable = true }: { data: CompareData; exportable?: boolean }) {
  const t = costTable(data);
  const priced = data.costs.some((c) => c?.perThousandSuccessfulRequests != null);
  const ranked = rankablePriced(data.costs.filter((c) => c?.perThousandSuccessfulRequests != null).length);
  const perMonth = data.groups.map((g) => perMonthAtMeasuredRate(g.runs.map((r) => r.summary?.cost)));
  return (
    <section
      data-testid="cmp-cost-table"
      data-cost-available={String(priced)}
      className="break-inside-avoid rounded-md border border-zinc-200 bg-white"
    >
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-zinc-200 px-3 py-2">
        <h2 className="text-xs font-medium text-zinc-700">
          Cost per 1 M successful requests and per month at the measured rate, by request x workload;{" "}
          {ranked ? "the cheapest target of each row highlighted" : "no cheapest: fewer than two targets are priced"}
        </h2>
        {exportable && (
          <ExportTableButtons name="cost per 1000 successful requests" fileName="cost-table" table={() => comparisonTable(data, "cost")} />
        )}
      </div>
      {!priced && (
        <p data-testid="cost-unavailable" className="border-b border-dashed border-zinc-300 bg-zinc-50 px-3 py-1.5 text-2xs text-zinc-600">
          No cost: these runs&apos; targets are not priced (give a target prices or a price catalog in its form, under
          &ldquo;Pricing&rdquo;; see docs/cost.md). The cells show each target&apos;s requests and p95 meanwhile.
        </p>
      )}
      <ScrollX>
        <table className="w-full text-xs">
          <thead className="border-b border-zinc-200 bg-zinc-50 text-2xs uppercase tracking-wide text-zinc-500">
            <tr>
              <th className="px-3 py-1.5 text-left font-medium">Request</th>
              <th className="px-3 py-1.5 text-left font-medium">Workload</th>
              {t.columns.map((c) => (
                <th key={c} className="px-3 py-1.5 text-right font-medium normal-case">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100">
            {t.rows.map((r) => (
              <tr key={`${r.request}\u0000${r.workload}`} data-testid="cost-row">
                <td className="px-3 py-1.5 font-mono">{r.request}</td>
                <td className="px-3 py-1.5 font-mono">{r.workload}</td>
                {t.columns.map((c) => {
                  const cell = r.cells[c];
                  const cheapest = r.cheapest === c;
                  return (
                    <td
                      key={c}
                      data-testid="cost-cell"
                      data-target={c}
                      data-cheapest={String(cheapest)}
                      data-cost={cell?.perThousand ?? ""}
                      data-cost-per-million={cell?.perThousand == null ? "" : cell.perThousand * 1000}
                      data-cost-per-month={cell ? (perMonth[cell.group] ?? "") : ""}
                      data-estimated={String((cell?.assumptions.length ?? 0) > 0)}
                      title={cell?.assumptions.length ? `estimated: ${cell.assumptions.join("; ")}` : undefined}
                      className={`px-3 py-1.5 text-right ${cheapest ? "bg-emerald-50 font-semibold text-emerald-800" : ""}`}
                    >
                      {!cell ? (
                        <span className="text-zinc-500">—</span>
                      ) : (
                        <>
                          <div className="font-mono tabular-nums">
                            {cell.perThousand === null ? (
                              <span className="text-zinc-400">not priced</span>
                            ) : (
                              <span data-testid="cost-per-million">{fmtMoney(cell.perThousand * 1000, cell.unit ?? "")} / 1 M req</span>
                            )}
                            {cell.assumptions.length > 0 && (
                              <span
                                data-testid="cost-estimated"
                                className="ml-1 rounded bg-amber-50 px-1 text-2xs text-amber-800 ring-1 ring-amber-300"
                              >
                                estimated
                              </span>
                            )}
                          </div>
                          {cell.perThousand !== null && perMonth[cell.group] != null && (
                            <div data-testid="cost-per-month" className="font-mono text-2xs font-normal tabular-nums text-zinc-600">
                              {fmtMoney(perMonth[cell.group], cell.unit ?? "")} / month at this rate
                            </div>
                          )}
                          {cell.assumptions.length > 0 && (
                            <div className="text-2xs font-normal text-amber-700">{cell.assumptions.join("; ")}</div>
                          )}
                          <div className="font-mono text-2xs font-normal text-zinc-500">
                            {fmtCount(cell.requests)} req · p95 {fmtMs(cell.p95)} ms
                          </div>
                        </>
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollX>
    </section>
  );
}
