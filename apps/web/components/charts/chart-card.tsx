"use client";

import { useRef, type ReactElement, type ReactNode } from "react";
import { ResponsiveContainer } from "recharts";
import type { ChartLegendItem } from "@/lib/export/chart-image";
import type { DataTable } from "@/lib/export/data-table";
import { ExportChartButtons, ExportTableButtons } from "../export-buttons";
import { CHART_HEIGHT } from "./palette";

export function Legend({ items }: { items: ChartLegendItem[] }) {
  return (
    <ul className="flex flex-wrap gap-x-3 gap-y-0.5 text-2xs text-zinc-600">
      {items.map((it) => (
        <li key={`${it.label}${it.dash ?? ""}`} className="inline-flex items-center gap-1">
          <svg width="18" height="6" aria-hidden>
            <line x1="0" y1="3" x2="18" y2="3" stroke={it.color} strokeWidth="2" strokeDasharray={it.dash || undefined} />
          </svg>
          {it.label}
        </li>
      ))}
    </ul>
  );
}

/** The run page's live charts: 200 px high, "no data yet" until the first point, no export buttons (no `table`). */
export const LIVE_CHART = { height: 200, emptyText: "no data yet", initialWidth: 400 } as const;

/**
 * A titled chart: the one card of every chart of the run, comparison and share pages. With a `table`, its
 * legend and export buttons (PNG/SVG of the chart, CSV/JSON of its data); without one, a plain title (the run
 * page's live charts). `points` is how many data points it draws: 0 shows `emptyText`; tests read it from
 * data-points.
 */
export function ChartCard({
  title,
  fileName,
  testId,
  points,
  legend,
  table,
  exportable = true,
  height = CHART_HEIGHT,
  note,
  controls,
  children,
  recharts = true,
  seriesPoints,
  resolutionSeconds,
  emptyText = "no data",
  className = "break-inside-avoid",
  initialWidth = 600,
}: {
  title: string;
  /** Short name for exported files, e.g. "latency-over-time" (with `table`). */
  fileName?: string;
  testId: string;
  points: number;
  legend?: ChartLegendItem[];
  /** The chart's data for the export buttons; without it the card has no buttons and a plain title. */
  table?: () => DataTable;
  exportable?: boolean;
  height?: number;
  note?: ReactNode;
  /** Controls beside the title (a metric switch, a scale toggle, a legend that hides series). */
  controls?: ReactNode;
  children: ReactNode;
  /** False for charts drawn as plain SVG (no ResponsiveContainer). */
  recharts?: boolean;
  /** The most points any one series draws (charts over time; tests read data-series-points). */
  seriesPoints?: number;
  /** Seconds per point of a chart over time (data-resolution-seconds). */
  resolutionSeconds?: number | null;
  /** What an empty chart says ("no data yet" on a run's live page). */
  emptyText?: string;
  /** Classes beside the card's border and padding. */
  className?: string;
  /** The chart's width before it is measured (server render). */
  initialWidth?: number;
}) {
  const plot = useRef<HTMLDivElement>(null);
  return (
    <section
      data-testid={testId}
      data-points={points}
      data-series-points={seriesPoints}
      data-resolution-seconds={resolutionSeconds ?? undefined}
      className={`${className} rounded-md border border-zinc-200 bg-white p-3`}
    >
      {table ? (
        <div className="mb-1 flex flex-wrap items-center justify-between gap-2">
          <h3 className="text-xs font-medium text-zinc-700">{title}</h3>
          {controls}
          {exportable && (
            <span className="inline-flex gap-2">
              <ExportChartButtons name={title} fileName={fileName ?? testId} target={plot} legend={legend} />
              <ExportTableButtons name={title} fileName={fileName ?? testId} table={table} />
            </span>
          )}
        </div>
      ) : (
        <h3 className="mb-2 text-xs font-medium text-zinc-600">{title}</h3>
      )}
      {legend && legend.length > 0 && <Legend items={legend} />}
      <div ref={plot} className={table ? "mt-1" : undefined}>
        {points === 0 ? (
          <div style={{ height }} className="flex items-center justify-center text-xs text-zinc-400">
            {emptyText}
          </div>
        ) : recharts ? (
          <ResponsiveContainer width="100%" height={height} initialDimension={{ width: initialWidth, height }}>
            {children as ReactElement}
          </ResponsiveContainer>
        ) : (
          children
        )}
      </div>
      {note && <div className="mt-1 text-2xs text-zinc-500">{note}</div>}
    </section>
  );
}
