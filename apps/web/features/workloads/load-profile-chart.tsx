"use client";

import type { LoadPoint } from "@opsbench/core";
import { Bar, BarChart, CartesianGrid, Cell, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

import { AXIS, GRID, GROUP_COLORS as COLORS, TOOLTIP } from "@/components/charts/palette";

export interface ProfileSeries {
  label: string;
  points: LoadPoint[];
}

/** Seconds as m:ss (or h:mm:ss), the way a load profile is read. */
export function fmtClock(seconds: number): string {
  const s = Math.round(seconds * 10) / 10;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s - h * 3600 - m * 60;
  const sec = Number.isInteger(rest) ? String(rest).padStart(2, "0") : rest.toFixed(1).padStart(4, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** What a profile's y values are: VUs (closed model), iterations per second (open) or a share of a measured maximum. */
export function profileUnit(points: LoadPoint[]): { key: "vus" | "rate" | "percentOfMax"; label: string } {
  if (points.some((p) => p.rate !== undefined)) return { key: "rate", label: "iterations/s" };
  if (points.some((p) => p.percentOfMax !== undefined)) return { key: "percentOfMax", label: "% of max throughput" };
  return { key: "vus", label: "VUs" };
}

/**
 * The planned load of one or more workloads (a sweep: one line each) before
 * running: linear between points, a jump is two points at one t. `data-points`
 * is the number of profile points drawn.
 */
export function LoadProfileChart({ series, height = 220, note }: { series: ProfileSeries[]; height?: number; note?: string }) {
  const total = series.reduce((a, s) => a + s.points.length, 0);
  const unit = profileUnit(series.flatMap((s) => s.points));
  const end = Math.max(0, ...series.flatMap((s) => s.points.map((p) => p.t)));
  return (
    <section
      data-testid="profile-chart"
      data-points={total}
      data-unit={unit.key}
      data-end-seconds={end}
      className="rounded-md border border-zinc-200 bg-white p-3"
    >
      <div className="mb-1 flex flex-wrap items-baseline justify-between gap-2">
        <h3 className="text-xs font-medium text-zinc-700">
          Load profile <span className="font-normal text-zinc-400">({unit.label} over time, m:ss)</span>
        </h3>
        {total > 0 && end > 0 && <span className="font-mono text-2xs text-zinc-500">planned {fmtClock(end)}</span>}
      </div>
      {series.length > 1 && !series.every((s) => s.points.length === 1) && (
        <ul className="mb-1 flex flex-wrap gap-x-3 text-2xs text-zinc-600">
          {series.map((s, i) => (
            <li key={s.label} className="inline-flex items-center gap-1">
              <span className="inline-block h-0.5 w-4" style={{ background: COLORS[i % COLORS.length] }} />
              {s.label}
            </li>
          ))}
        </ul>
      )}
      {total === 0 ? (
        <div style={{ height }} className="flex items-center justify-center text-center text-xs text-zinc-400">
          {note ?? "no profile to draw"}
        </div>
      ) : series.every((s) => s.points.length === 1) ? (
        // Each workload is one level with no time axis (N requests at C VUs): the levels side by side.
        <>
          <ResponsiveContainer width="100%" height={height} initialDimension={{ width: 600, height }}>
            <BarChart
              data={series.map((s) => ({ label: s.label.split("-").at(-1), value: s.points[0]![unit.key] ?? 0 }))}
              margin={{ top: 8, right: 16, bottom: 0, left: 0 }}
            >
              <CartesianGrid stroke={GRID} vertical={false} />
              <XAxis dataKey="label" tick={AXIS} tickLine={false} axisLine={{ stroke: GRID }} interval={0} />
              <YAxis tick={AXIS} tickLine={false} axisLine={false} width={44} allowDecimals={false} />
              <Tooltip
                contentStyle={TOOLTIP.contentStyle}
                formatter={(v) => [`${v} ${unit.label}`, "level"]}
                cursor={{ fill: "#f4f4f5" }}
              />
              <Bar dataKey="value" isAnimationActive={false}>
                {series.map((s, i) => (
                  <Cell key={s.label} fill={COLORS[i % COLORS.length]} />
                ))}
              </Bar>
            </BarChart>
          </ResponsiveContainer>
          {note && <p className="mt-1 text-2xs text-zinc-500">{note}</p>}
        </>
      ) : (
        <>
          <ResponsiveContainer width="100%" height={height} initialDimension={{ width: 600, height }}>
            <LineChart margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
              <CartesianGrid stroke={GRID} vertical={false} />
              <XAxis
                dataKey="t"
                type="number"
                domain={[0, end > 0 ? end : 1]}
                tick={AXIS}
                tickLine={false}
                axisLine={{ stroke: GRID }}
                tickFormatter={fmtClock}
                allowDuplicatedCategory={false}
                minTickGap={24}
              />
              <YAxis tick={AXIS} tickLine={false} axisLine={false} width={44} allowDecimals={false} domain={[0, "auto"]} />
              <Tooltip
                contentStyle={TOOLTIP.contentStyle}
                labelFormatter={(v) => `at ${fmtClock(Number(v))}`}
                formatter={(v, name) => [`${Number(v).toFixed(unit.key === "vus" ? 0 : 2)} ${unit.label}`, String(name)]}
              />
              {series.map((s, i) => (
                <Line
                  key={s.label}
                  name={s.label}
                  data={s.points}
                  dataKey={unit.key}
                  type="linear"
                  stroke={COLORS[i % COLORS.length]}
                  strokeWidth={1.75}
                  dot={s.points.length <= 24 ? { r: 2.5, strokeWidth: 1 } : false}
                  activeDot={{ r: 4 }}
                  isAnimationActive={false}
                />
              ))}
            </LineChart>
          </ResponsiveContainer>
          {note && <p className="mt-1 text-2xs text-zinc-500">{note}</p>}
        </>
      )}
    </section>
  );
}
