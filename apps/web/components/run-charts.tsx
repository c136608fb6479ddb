"use client";

import type { TimeBucket } from "@opsbench/core";
import type { ReactNode } from "react";
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

const AXIS = { fontSize: 11, fill: "#71717a" };
const GRID = "#e4e4e7";
const HEIGHT = 200;
const TOOLTIP = {
  contentStyle: { fontSize: 11, padding: "4px 8px", borderRadius: 4, borderColor: "#d4d4d8" },
  labelStyle: { color: "#52525b", marginBottom: 2 },
  itemStyle: { padding: 0 },
};
/** Goodput axis: 100 at the top, the floor a little under the worst bucket (so a dip is visible). */
const goodputFloor = (dataMin: number) => Math.max(0, Math.floor(dataMin / 5) * 5 - 5);

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

const xAxis = (
  <XAxis
    dataKey="offsetSeconds"
    tick={AXIS}
    tickLine={false}
    axisLine={{ stroke: GRID }}
    tickFormatter={(v: number) => `${v}s`}
    minTickGap={16}
  />
);

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
        <BarChart data={points} syncId="run" margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={GRID} vertical={false} />
          {xAxis}
          <YAxis tick={AXIS} tickLine={false} axisLine={false} width={48} allowDecimals={false} />
          <Tooltip {...TOOLTIP} labelFormatter={bucketLabel} formatter={(v) => [String(v), "requests"]} cursor={{ fill: "#f4f4f5" }} />
          <Bar dataKey="requests" fill="#3b82f6" isAnimationActive={false} minPointSize={1} />
        </BarChart>
      </ChartCard>
      <ChartCard title="p95 latency (ms)" testId="chart-p95" points={n}>
        <LineChart data={points} syncId="run" margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={GRID} vertical={false} />
          {xAxis}
          <YAxis tick={AXIS} tickLine={false} axisLine={false} width={48} />
          <Tooltip {...TOOLTIP} labelFormatter={bucketLabel} formatter={(v) => [v == null ? "—" : `${Number(v).toFixed(2)} ms`, "p95"]} />
          <Line
            type="linear"
            dataKey="p95Ms"
            stroke="#f59e0b"
            strokeWidth={1.5}
            dot={{ r: 2.5, strokeWidth: 1 }}
            activeDot={{ r: 4 }}
            isAnimationActive={false}
          />
        </LineChart>
      </ChartCard>
      <ChartCard title="Goodput (%)" testId="chart-goodput" points={n}>
        <LineChart data={points} syncId="run" margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={GRID} vertical={false} />
          {xAxis}
          <YAxis tick={AXIS} tickLine={false} axisLine={false} width={48} domain={[goodputFloor, 100]} tickCount={6} />
          <Tooltip
            {...TOOLTIP}
            labelFormatter={bucketLabel}
            formatter={(v) => [v == null ? "—" : `${Number(v).toFixed(2)} %`, "goodput"]}
          />
          <Line
            type="linear"
            dataKey="goodput"
            stroke="#10b981"
            strokeWidth={1.5}
            dot={{ r: 2.5, strokeWidth: 1 }}
            activeDot={{ r: 4 }}
            isAnimationActive={false}
          />
        </LineChart>
      </ChartCard>
    </div>
  );
}
