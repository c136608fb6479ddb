"use client";

import type { TimeBucket } from "@opsbench/core";
import type { ReactNode } from "react";
import { Bar, BarChart, LineChart, ResponsiveContainer, Tooltip, YAxis } from "recharts";
import { bucketLine, CHART_MARGIN, goodputFloor, horizontalGrid, secondsAxis } from "./charts/chart-parts";
import { AXIS, TOOLTIP } from "./charts/palette";

const HEIGHT = 200;

function ChartCard({ title, testId, points, children }: { title: string; testId: string; points: number; children: ReactNode }) {
  return (
    <section data-testid={testId} data-points={points} className="rounded-md border border-zinc-200 bg-white p-3">
      <h3 className="mb-2 text-xs font-medium text-zinc-600">{title}</h3>
      {points === 0 ? (
        <div style={{ height: HEIGHT }} className="flex items-center justify-center text-xs text-zinc-400">
          no data yet
        </div>
      ) : (
        <ResponsiveContainer width="100%" height={HEIGHT} initialDimension={{ width: 400, height: HEIGHT }}>
          {children as React.ReactElement}
        </ResponsiveContainer>
      )}
    </section>
  );
}

/**
 * The run's time series in fixed buckets (x = seconds from load start). Every
 * bucket is one bar / one dot in the DOM (`.recharts-bar-rectangle`,
 * `.recharts-line-dot`); a line has no dot where its bucket served no requests.
 */
export function RunCharts({ points, bucketSeconds }: { points: TimeBucket[]; bucketSeconds: number }) {
  const n = points.length;
  const bucketLabel = (v: unknown) => `${v}–${Number(v) + bucketSeconds} s after load start`;
  return (
    <div className="grid grid-cols-1 gap-3 lg:grid-cols-3">
      <ChartCard title={`Requests served (per ${bucketSeconds} s)`} testId="chart-requests" points={n}>
        <BarChart data={points} syncId="run" margin={CHART_MARGIN}>
          {horizontalGrid}
          {secondsAxis}
          <YAxis tick={AXIS} tickLine={false} axisLine={false} width={48} allowDecimals={false} />
          <Tooltip {...TOOLTIP} labelFormatter={bucketLabel} formatter={(v) => [String(v), "requests"]} cursor={{ fill: "#f4f4f5" }} />
          <Bar dataKey="requests" fill="#3b82f6" isAnimationActive={false} minPointSize={1} />
        </BarChart>
      </ChartCard>
      <ChartCard title="p95 latency (ms)" testId="chart-p95" points={n}>
        <LineChart data={points} syncId="run" margin={CHART_MARGIN}>
          {horizontalGrid}
          {secondsAxis}
          <YAxis tick={AXIS} tickLine={false} axisLine={false} width={48} />
          <Tooltip {...TOOLTIP} labelFormatter={bucketLabel} formatter={(v) => [v == null ? "—" : `${Number(v).toFixed(2)} ms`, "p95"]} />
          {bucketLine({ dataKey: "p95Ms", stroke: "#f59e0b" })}
        </LineChart>
      </ChartCard>
      <ChartCard title="Goodput (%)" testId="chart-goodput" points={n}>
        <LineChart data={points} syncId="run" margin={CHART_MARGIN}>
          {horizontalGrid}
          {secondsAxis}
          <YAxis tick={AXIS} tickLine={false} axisLine={false} width={48} domain={[goodputFloor, 100]} tickCount={6} />
          <Tooltip
            {...TOOLTIP}
            labelFormatter={bucketLabel}
            formatter={(v) => [v == null ? "—" : `${Number(v).toFixed(2)} %`, "goodput"]}
          />
          {bucketLine({ dataKey: "goodput", stroke: "#10b981" })}
        </LineChart>
      </ChartCard>
    </div>
  );
}
