import type { Metadata } from "next";
import { CompareView } from "@/features/compare/compare-view";
import { PrintButton } from "@/features/compare/compare-print-button";
import { resolveWorkspace } from "@/lib/server/workspace";
import { fmtTime } from "@/lib/format";
import { runNumbers } from "@/lib/export/comparison-tables";
import { forCharts } from "@/features/compare/compare-data";
import { comparisonFromQuery } from "@/features/compare/load-from-query";
import "./report.css";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Comparison report" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** A printable report of a comparison: every chart and table, a header with the selection and date, no navigation. */
export default async function CompareReportPage({ searchParams }: Props) {
  const result = await comparisonFromQuery(await resolveWorkspace(), await searchParams);
  if (result.state !== "ok") {
    return (
      <p data-testid="cmp-error" className="rounded border border-red-300 bg-red-50 px-3 py-2 text-xs text-red-800">
        {result.state === "empty" ? "Nothing selected: open a comparison and use “Printable report”." : result.message}
      </p>
    );
  }
  const { data } = result;
  return (
    <article data-testid="cmp-report" className="mx-auto max-w-[1000px] space-y-3">
      <header className="border-b border-zinc-300 pb-2">
        <div className="flex items-baseline justify-between gap-2">
          <h1 className="text-lg font-semibold">opsbench comparison{data.title ? `: ${data.title}` : ""}</h1>
          <PrintButton />
        </div>
        <p className="text-xs text-zinc-600">
          Generated {fmtTime(data.generatedAt)} UTC · {data.groups.length} groups · {data.groups.reduce((n, g) => n + g.runs.length, 0)}{" "}
          runs
        </p>
        <table className="mt-2 text-2xs">
          <tbody>
            {data.groups.map((g, i) => (
              <tr key={i} className="align-top">
                <td className="pr-3 font-mono font-medium">
                  {g.label}
                  {i === 0 && data.groups.length > 1 ? " (baseline)" : ""}
                </td>
                <td className="pr-3 text-zinc-600">
                  {g.target ? `${g.target.name} (${g.target.kind})` : "imported"} × {g.workload?.name ?? "—"}
                </td>
                <td className="font-mono text-zinc-500">{g.runs.map((r) => `#${runNumbers(g).get(r.id)} ${r.id}`).join(", ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </header>
      <CompareView data={forCharts(data)} mode="report" />
    </article>
  );
}
