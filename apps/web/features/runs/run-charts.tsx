"use client";

import type { TimeBucket } from "@opsbench/core";
import Link from "next/link";
import { Area, AreaChart, Bar, BarChart, LineChart, Tooltip, YAxis } from "recharts";
import { ChartCard, LIVE_CHART } from "@/components/charts/chart-card";
import { bucketLine, CHART_MARGIN, goodputFloor, horizontalGrid, numericSecondsAxis, secondsAxis } from "@/components/charts/chart-parts";
import { MAX_BARS, MAX_DOTS } from "@/components/charts/chart-series";
import { ZoomDrag, useZoomReset } from "@/components/charts/zoom-drag";
import { AXIS, TOOLTIP } from "@/components/charts/palette";

/**
 * The run's time series in fixed buckets (x = seconds from load start). Every
 * bucket is one bar / one dot in the DOM (`.recharts-bar-rectangle`,
 * `.recharts-line-dot`); a line has no dot where its bucket served no requests.
 */
export function RunCharts({
  points,
  bucketSeconds,
  window = null,
}: {
  points: TimeBucket[];
  bucketSeconds: number;
  window?: { fromSeconds: number; toSeconds: number } | null;
}) {
  const n = points.length;
  const bucketLabel = (v: unknown) => `${v}–${Number(v) + bucketSeconds} s after load start`;
  const reset = useZoomReset();
  // Long series: counts as a step line (bars would be a solid block), lines without a dot per point.
  const bars = n <= MAX_BARS;
  const dots = n <= MAX_DOTS;
  const xAxis = dots ? secondsAxis : numericSecondsAxis;
  return (
    <div className="grid grid-cols-1 gap-3 lg:grid-cols-3">
      {window && (
        <p data-testid="run-zoom" className="text-[11px] text-zinc-500 lg:col-span-3">
          Showing {window.fromSeconds}–{window.toSeconds} s after the load start ({bucketSeconds} s buckets).{" "}
          <Link href={reset} scroll={false} className="text-blue-600 hover:underline">
            Whole run
          </Link>
        </p>
      )}
      <ChartCard
        title={`Requests served (per ${bucketSeconds} s)`}
        testId="chart-requests"
        points={n}
        resolutionSeconds={bucketSeconds}
        {...LIVE_CHART}
      >
        {bars ? (
          <BarChart data={points} syncId="run" margin={CHART_MARGIN}>
            {horizontalGrid}
            {secondsAxis}
            <YAxis tick={AXIS} tickLine={false} axisLine={false} width={48} allowDecimals={false} />
            <Tooltip {...TOOLTIP} labelFormatter={bucketLabel} formatter={(v) => [String(v), "requests"]} cursor={{ fill: "#f4f4f5" }} />
            <Bar dataKey="requests" fill="#3b82f6" isAnimationActive={false} minPointSize={1} />
            <ZoomDrag />
          </BarChart>
        ) : (
          <AreaChart data={points} syncId="run" margin={CHART_MARGIN}>
            {horizontalGrid}
            {numericSecondsAxis}
            <YAxis tick={AXIS} tickLine={false} axisLine={false} width={48} allowDecimals={false} />
            <Tooltip {...TOOLTIP} labelFormatter={bucketLabel} formatter={(v) => [String(v), "requests"]} />
            <Area dataKey="requests" type="stepAfter" stroke="#3b82f6" fill="#3b82f6" fillOpacity={0.08} isAnimationActive={false} />
            <ZoomDrag />
          </AreaChart>
        )}
      </ChartCard>
      <ChartCard
        title={`p95 latency (ms, ${bucketSeconds} s buckets)`}
        testId="chart-p95"
        points={n}
        resolutionSeconds={bucketSeconds}
        {...LIVE_CHART}
      >
        <LineChart data={points} syncId="run" margin={CHART_MARGIN}>
          {horizontalGrid}
          {xAxis}
          <YAxis tick={AXIS} tickLine={false} axisLine={false} width={48} />
          <Tooltip {...TOOLTIP} labelFormatter={bucketLabel} formatter={(v) => [v == null ? "—" : `${Number(v).toFixed(2)} ms`, "p95"]} />
          {bucketLine({ dataKey: "p95Ms", stroke: "#f59e0b", dots })}
          <ZoomDrag />
        </LineChart>
      </ChartCard>
      <ChartCard title="Goodput (%)" testId="chart-goodput" points={n} resolutionSeconds={bucketSeconds} {...LIVE_CHART}>
        <LineChart data={points} syncId="run" margin={CHART_MARGIN}>
          {horizontalGrid}
          {xAxis}
          <YAxis tick={AXIS} tickLine={false} axisLine={false} width={48} domain={[goodputFloor, 100]} tickCount={6} />
          <Tooltip
            {...TOOLTIP}
            labelFormatter={bucketLabel}
            formatter={(v) => [v == null ? "—" : `${Number(v).toFixed(2)} %`, "goodput"]}
          />
          {bucketLine({ dataKey: "goodput", stroke: "#10b981", dots })}
          <ZoomDrag />
        </LineChart>
      </ChartCard>
    </div>
  );
}
