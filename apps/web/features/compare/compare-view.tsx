"use client";

// A comparison side by side: groups, the verdicts (the primary metric's first), results and flags, charts and the
// cost table. The same view serves the app ("app": exports, share, links to runs),
// the printable report ("report": no buttons) and public share pages ("share":
// exports but no links into the app).
import { COMPARISON_TABLES, type ShareInput } from "@opsbench/api";
import Link from "next/link";
import { type CompareData, unpackCharts } from "@/features/compare/compare-data";
import { comparisonTable } from "@/lib/export/comparison-tables";
import { downloadBlob, exportFileName } from "@/lib/export/download";
import { groupColor } from "@/components/charts/palette";
import { BoxPlotChart } from "./compare-box-plot";
import { CompareTimePanel, LatencyCdfChart } from "./compare-charts";
import { CompareBreakEven } from "./compare-break-even";
import { CompareCostTable } from "./compare-cost-table";
import { CompareSummaryTable } from "./compare-summary-table";
import { CompareVerdictExclusions } from "./compare-verdict-exclusions";
import { CompareVerdicts } from "./compare-verdicts";
import { VerdictAnswerCard } from "./compare-verdict-card";
import { ShareButton } from "@/features/share/share-button";
import { RoleGate } from "@/components/auth/role-gate";

export type CompareMode = "app" | "report" | "share";

function exportAll(data: CompareData) {
  const body = {
    title: data.title,
    generatedAt: data.generatedAt,
    tables: Object.fromEntries(COMPARISON_TABLES.map((t) => [t, comparisonTable(data, t)])),
    comparison: data,
  };
  downloadBlob(new Blob([JSON.stringify(body, null, 2)], { type: "application/json" }), exportFileName("comparison", "json"));
}

export function CompareView({
  data: sent,
  mode,
  share,
  reportHref,
}: {
  data: CompareData;
  mode: CompareMode;
  share?: ShareInput;
  reportHref?: string;
}) {
  const data = unpackCharts(sent);
  const exportable = mode !== "report";
  const charts = { data, exportable };
  return (
    <div data-testid="cmp-view" data-mode={mode} className="space-y-3">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <ul data-testid="cmp-groups" className="flex flex-wrap gap-2">
          {data.groups.map((g, i) => (
            <li key={i} className="flex items-center gap-1.5 rounded border border-zinc-200 bg-white px-2 py-1 text-xs">
              <span className="h-2.5 w-2.5 rounded-sm" style={{ background: groupColor(i) }} />
              <span className="font-mono font-medium">{g.label}</span>
              {i === 0 && data.groups.length > 1 && <span className="rounded bg-zinc-100 px-1 text-2xs text-zinc-500">baseline</span>}
              <span className="text-zinc-500">
                {g.label === `${g.target?.name} x ${g.workload?.name}`
                  ? ""
                  : `${g.target?.name ?? "imported"} × ${g.workload?.name ?? "—"} · `}
                {g.runs.length} run{g.runs.length === 1 ? "" : "s"}
              </span>
            </li>
          ))}
        </ul>
        {mode !== "report" && (
          <div className="flex items-center gap-2 print:hidden">
            {mode === "app" && reportHref && (
              <Link
                href={reportHref}
                data-testid="cmp-report-link"
                className="rounded border border-zinc-300 bg-white px-2 py-0.5 text-xs text-zinc-700 hover:border-zinc-400"
              >
                Printable report
              </Link>
            )}
            <button
              type="button"
              data-testid="cmp-export-all"
              onClick={() => exportAll(data)}
              className="rounded border border-zinc-300 bg-white px-2 py-0.5 text-xs text-zinc-700 hover:border-zinc-400"
            >
              Export all (JSON)
            </button>
            {mode === "app" && share && (
              <RoleGate atLeast="owner">
                <ShareButton input={share} />
              </RoleGate>
            )}
          </div>
        )}
      </div>

      {/* The answer first (winner, relative difference, interval, how sure; cost), then its evidence: validity, verdicts, tables, charts. */}
      <VerdictAnswerCard data={data} repeatable={mode === "app"} />
      <CompareVerdictExclusions data={data} linkable={mode === "app"} />
      <CompareVerdicts data={data} exportable={exportable} />
      <CompareSummaryTable data={data} exportable={exportable} linkRuns={mode === "app"} />

      <CompareTimePanel {...charts} controls={mode === "app"} />
      <LatencyCdfChart {...charts} />
      {/* The box plots scale with their width (a viewBox): they keep the whole row so their text stays 12-13 px. */}
      <BoxPlotChart {...charts} />
      {/* Side by side on a wide screen (the page is up to 1,600 px); the printed report keeps one a row. */}
      <div className={`grid grid-cols-1 gap-3 ${mode === "report" ? "" : "2xl:grid-cols-2"}`}>
        <CompareCostTable data={data} exportable={exportable} />
        <CompareBreakEven data={data} exportable={exportable} />
      </div>
    </div>
  );
}
