"use client";

// The comparison's charts: latency, requests and goodput over time (10 s buckets
// from each run's load start), the latency distribution (CDF, log x axis) and the
// infra timelines (replicas/instances and CPU per run). Each group has one colour.
import { STORED_QUANTILE_KEYS, type StoredQuantileKey } from "@opsbench/core";
import type { ComparisonGroup } from "@opsbench/db";
import type { ReactNode } from "react";
import Link from "next/link";
import { Area, AreaChart, Bar, BarChart, CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { CompareData } from "@/features/compare/compare-data";
import type { ChartLegendItem } from "@/lib/export/chart-image";
import { comparisonTable, runNumbers } from "@/lib/export/comparison-tables";
import { ChartCard } from "@/components/charts/chart-card";
import { bucketLine, CHART_MARGIN, goodputFloor, horizontalGrid, numericSecondsAxis, secondsAxis } from "@/components/charts/chart-parts";
import { MAX_BARS, MAX_DOTS } from "@/components/charts/chart-series";
import { ZoomDrag, useZoomReset } from "@/components/charts/zoom-drag";
import { AXIS, DASHES, GRID, groupColor, TOOLTIP } from "@/components/charts/palette";

type Props = { data: CompareData; exportable?: boolean };

type SeriesRow = Record<string, number | null>;

const seriesRows = (groups: ComparisonGroup[]): SeriesRow[] => {
  const offsets = [...new Set(groups.flatMap((g) => g.series.map((b) => b.offsetSeconds)))].sort((a, b) => a - b);
  return offsets.map((offsetSeconds) => {
    const row: SeriesRow = { offsetSeconds };
    groups.forEach((g, i) => {
      const b = g.series.find((x) => x.offsetSeconds === offsetSeconds);
      row[`req_${i}`] = b ? b.requests : null;
      // A stored quantile's per-second column (TimeBucket's `<q>Ms`): a quantile without one does not compile.
      for (const q of STORED_QUANTILE_KEYS) row[`${q}_${i}`] = b?.[`${q}Ms` as const] ?? null;
      row[`good_${i}`] = b?.goodput ?? null;
    });
    return row;
  });
};

/** The bucket length of the series shown (10 s unless zoomed into a short window). */
const bucketOf = (data: CompareData) => data.chart?.bucketSeconds ?? 10;
const bucketLabelOf = (data: CompareData) => (v: unknown) => `${v}–${Number(v) + bucketOf(data)} s after load start`;
const perBucket = (data: CompareData) => `${bucketOf(data)} s`;
/** The most points any one series of these columns draws. */
const seriesPoints = (rows: SeriesRow[], key: (i: number) => string, n: number) =>
  Math.max(0, ...Array.from({ length: n }, (_, i) => rows.filter((r) => r[key(i)] != null).length));
const fixed = (d: number, unit: string) => (v: unknown) => (v == null ? "—" : `${Number(v).toFixed(d)} ${unit}`);
const countOf = (rows: SeriesRow[], key: (i: number) => string, n: number) =>
  rows.reduce((s, r) => s + Array.from({ length: n }, (_, i) => (r[key(i)] == null ? 0 : 1)).reduce((a: number, b) => a + b, 0), 0);

/** Each stored quantile's line: p95 solid (the one the charts count), the others dashed. */
const QUANTILE_DASH = { p50: DASHES[2]!, p95: DASHES[0]!, p99: DASHES[1]! } satisfies Record<StoredQuantileKey, string>;
const PERCENTILES = STORED_QUANTILE_KEYS.map((key) => ({ key, dash: QUANTILE_DASH[key] }));

const groupLegend = (groups: ComparisonGroup[]): ChartLegendItem[] => groups.map((g, i) => ({ label: g.label, color: groupColor(i) }));

/** The charts over time (10 s buckets): each counts the points of its `<series>_<group>` columns. */
const OVER_TIME = {
  latency: {
    title: (b: string) => `Latency over time: ${STORED_QUANTILE_KEYS.join(" / ")} (ms, ${b} buckets)`,
    testId: "cmp-chart-latency",
    fileName: "latency-over-time",
    series: "p95",
  },
  requests: {
    title: (b: string) => `Requests served (per ${b})`,
    testId: "cmp-chart-requests",
    fileName: "requests-over-time",
    series: "req",
  },
  goodput: {
    title: (b: string) => `Goodput (% 2xx, per ${b})`,
    testId: "cmp-chart-goodput",
    fileName: "goodput-over-time",
    series: "good",
  },
};

/** The card of a chart over time, exporting the comparison's "series" table. */
function OverTimeCard({
  data,
  exportable,
  chart: { title, testId, fileName, series },
  rows,
  legend = groupLegend(data.groups),
  children,
}: Props & { chart: (typeof OVER_TIME)[keyof typeof OVER_TIME]; rows: SeriesRow[]; legend?: ChartLegendItem[]; children: ReactNode }) {
  const zoom = data.chart?.window;
  return (
    <ChartCard
      title={title(perBucket(data))}
      testId={testId}
      fileName={fileName}
      legend={legend}
      exportable={exportable}
      points={countOf(rows, (i) => `${series}_${i}`, data.groups.length)}
      seriesPoints={seriesPoints(rows, (i) => `${series}_${i}`, data.groups.length)}
      resolutionSeconds={bucketOf(data)}
      note={
        zoom ? (
          <ZoomNote from={zoom.fromSeconds} to={zoom.toSeconds} />
        ) : data.chart?.downsampled ? (
          "Drag across the chart to zoom in."
        ) : undefined
      }
      table={() => comparisonTable(data, "series")}
    >
      {children}
    </ChartCard>
  );
}

function ZoomNote({ from, to }: { from: number; to: number }) {
  return (
    <span data-testid="cmp-zoom">
      Showing {from}–{to} s after the load start.{" "}
      <Link href={useZoomReset()} scroll={false} data-testid="cmp-zoom-reset" className="text-blue-600 hover:underline">
        Whole run
      </Link>
    </span>
  );
}

export function LatencyOverTimeChart({ data, exportable }: Props) {
  const rows = seriesRows(data.groups);
  const legend: ChartLegendItem[] = [
    ...groupLegend(data.groups),
    ...PERCENTILES.map((p) => ({ label: p.key, color: "#71717a", dash: p.dash })),
  ];
  const dots = rows.length <= MAX_DOTS;
  return (
    <OverTimeCard data={data} exportable={exportable} chart={OVER_TIME.latency} rows={rows} legend={legend}>
      <LineChart data={rows} margin={CHART_MARGIN}>
        {horizontalGrid}
        {dots ? secondsAxis : numericSecondsAxis}
        <YAxis tick={AXIS} tickLine={false} axisLine={false} width={52} />
        <Tooltip {...TOOLTIP} labelFormatter={bucketLabelOf(data)} formatter={fixed(2, "ms")} />
        {data.groups.flatMap((g, i) =>
          PERCENTILES.map((p) =>
            bucketLine({
              key: `${p.key}_${i}`,
              name: `${g.label} ${p.key}`,
              dataKey: `${p.key}_${i}`,
              stroke: groupColor(i),
              strokeDasharray: p.dash || undefined,
              strokeWidth: p.key === "p95" ? 1.8 : 1.2,
              dotRadius: p.key === "p95" ? 2.5 : 1.5,
              dots,
            }),
          ),
        )}
        <ZoomDrag />
      </LineChart>
    </OverTimeCard>
  );
}

export function RequestsOverTimeChart({ data, exportable }: Props) {
  const rows = seriesRows(data.groups);
  // A few dozen buckets read as bars; more become a solid block, so counts are drawn as step lines.
  const bars = rows.length <= MAX_BARS;
  return (
    <OverTimeCard data={data} exportable={exportable} chart={OVER_TIME.requests} rows={rows}>
      {bars ? (
        <BarChart data={rows} margin={CHART_MARGIN}>
          {horizontalGrid}
          {secondsAxis}
          <YAxis tick={AXIS} tickLine={false} axisLine={false} width={52} allowDecimals={false} />
          <Tooltip {...TOOLTIP} labelFormatter={bucketLabelOf(data)} cursor={{ fill: "#f4f4f5" }} />
          {data.groups.map((g, i) => (
            <Bar key={i} name={g.label} dataKey={`req_${i}`} fill={groupColor(i)} isAnimationActive={false} minPointSize={1} />
          ))}
          <ZoomDrag />
        </BarChart>
      ) : (
        <AreaChart data={rows} margin={CHART_MARGIN}>
          {horizontalGrid}
          {numericSecondsAxis}
          <YAxis tick={AXIS} tickLine={false} axisLine={false} width={52} allowDecimals={false} />
          <Tooltip {...TOOLTIP} labelFormatter={bucketLabelOf(data)} />
          {data.groups.map((g, i) => (
            <Area
              key={i}
              name={g.label}
              dataKey={`req_${i}`}
              type="stepAfter"
              stroke={groupColor(i)}
              fill={groupColor(i)}
              fillOpacity={0.06}
              strokeWidth={1.4}
              connectNulls
              isAnimationActive={false}
            />
          ))}
          <ZoomDrag />
        </AreaChart>
      )}
    </OverTimeCard>
  );
}

export function GoodputOverTimeChart({ data, exportable }: Props) {
  const rows = seriesRows(data.groups);
  const dots = rows.length <= MAX_DOTS;
  return (
    <OverTimeCard data={data} exportable={exportable} chart={OVER_TIME.goodput} rows={rows}>
      <LineChart data={rows} margin={CHART_MARGIN}>
        {horizontalGrid}
        {dots ? secondsAxis : numericSecondsAxis}
        <YAxis tick={AXIS} tickLine={false} axisLine={false} width={52} domain={[goodputFloor, 100]} tickCount={6} />
        <Tooltip {...TOOLTIP} labelFormatter={bucketLabelOf(data)} formatter={fixed(2, "%")} />
        {data.groups.map((g, i) => bucketLine({ key: i, name: g.label, dataKey: `good_${i}`, stroke: groupColor(i), dots }))}
        <ZoomDrag />
      </LineChart>
    </OverTimeCard>
  );
}

/** Ticks at 1, 2 and 5 of each decade within [min, max]. */
function logTicks(min: number, max: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= min && v <= max) out.push(Number(v.toPrecision(3)));
    }
  }
  return out;
}
const fmtTickMs = (v: number) => (v >= 1000 ? `${v / 1000}s` : `${v}`);

export function LatencyCdfChart({ data, exportable }: Props) {
  const all = data.groups.flatMap((g) => g.distribution.map((d) => d.ms)).filter((v) => v > 0);
  const min = all.length ? Math.min(...all) : 1;
  const max = all.length ? Math.max(...all) : 10;
  const domain: [number, number] = [min * 0.95, max * 1.05];
  const ticks = logTicks(domain[0], domain[1]);
  return (
    <ChartCard
      title="Latency distribution (CDF; ms, log scale)"
      testId="cmp-chart-cdf"
      fileName="latency-distribution"
      exportable={exportable}
      legend={groupLegend(data.groups)}
      points={data.groups.reduce((s, g) => s + g.distribution.length, 0)}
      table={() => comparisonTable(data, "distribution")}
    >
      <LineChart margin={{ top: 4, right: 12, bottom: 0, left: 0 }}>
        <CartesianGrid stroke={GRID} />
        <XAxis
          dataKey="ms"
          type="number"
          scale="log"
          domain={domain}
          allowDataOverflow
          ticks={ticks.length >= 2 ? ticks : undefined}
          tick={AXIS}
          tickLine={false}
          axisLine={{ stroke: GRID }}
          tickFormatter={fmtTickMs}
        />
        <YAxis
          dataKey="cumulative"
          type="number"
          domain={[0, 1]}
          ticks={[0, 0.25, 0.5, 0.75, 0.9, 1]}
          tick={AXIS}
          tickLine={false}
          axisLine={false}
          width={44}
          tickFormatter={(v: number) => `${Math.round(v * 100)}%`}
          interval={0}
        />
        <Tooltip {...TOOLTIP} labelFormatter={(v) => `${Number(v).toFixed(2)} ms`} formatter={(v) => `${(Number(v) * 100).toFixed(1)} %`} />
        {data.groups.map((g, i) => (
          <Line
            key={i}
            name={g.label}
            data={g.distribution.filter((d) => d.ms > 0)}
            dataKey="cumulative"
            type="linear"
            stroke={groupColor(i)}
            strokeWidth={1.6}
            dot={false}
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </ChartCard>
  );
}

/** The infra timelines: one line per run (group colour; repetitions told apart by dash). */
function InfraChart({ data, exportable, metric }: Props & { metric: "replicas" | "cpu" }) {
  const lines = data.groups
    .flatMap((g, gi) => {
      const runIds = [...new Set(g.infra.map((p) => p.runId))];
      const numbers = runNumbers(g);
      return runIds.map((runId, ri) => {
        const rep = numbers.get(runId) ?? ri + 1;
        const points = g.infra
          .filter((p) => p.runId === runId && (metric === "replicas" || p.cpuPercent !== null))
          .map((p) => ({ offsetSeconds: p.offsetSeconds, value: metric === "replicas" ? p.replicas : p.cpuPercent }));
        return { key: `${gi}:${runId}`, label: `${g.label} #${rep}`, color: groupColor(gi), dash: DASHES[ri % DASHES.length]!, points };
      });
    })
    .filter((l) => l.points.length > 0);
  const maxReplicas = Math.max(1, ...lines.flatMap((l) => l.points.map((p) => Number(p.value))));
  const xMax = Math.max(1, ...lines.flatMap((l) => l.points.map((p) => p.offsetSeconds)));
  const step = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600].find((s) => xMax / s <= 8) ?? 7200;
  const xTicks = Array.from({ length: Math.floor(xMax / step) + 1 }, (_, i) => i * step);
  const title =
    metric === "replicas" ? "Replicas / instances over time (per run)" : "Target CPU over time (mean % per replica/instance, per run)";
  return (
    <ChartCard
      title={title}
      testId={metric === "replicas" ? "cmp-chart-infra" : "cmp-chart-infra-cpu"}
      fileName={metric === "replicas" ? "infra-replicas" : "infra-cpu"}
      exportable={exportable}
      legend={lines.map((l) => ({ label: l.label, color: l.color, dash: l.dash }))}
      points={lines.reduce((s, l) => s + l.points.length, 0)}
      table={() => comparisonTable(data, "infra")}
    >
      <LineChart margin={{ top: 4, right: 12, bottom: 0, left: 0 }}>
        <CartesianGrid stroke={GRID} vertical={false} />
        <XAxis
          dataKey="offsetSeconds"
          type="number"
          domain={[0, xMax]}
          ticks={xTicks}
          tick={AXIS}
          tickLine={false}
          axisLine={{ stroke: GRID }}
          tickFormatter={(v: number) => `${v}s`}
        />
        {metric === "replicas" ? (
          <YAxis
            dataKey="value"
            type="number"
            domain={[0, maxReplicas + 1]}
            allowDecimals={false}
            tick={AXIS}
            tickLine={false}
            axisLine={false}
            width={36}
          />
        ) : (
          <YAxis
            dataKey="value"
            type="number"
            domain={[0, "auto"]}
            tick={AXIS}
            tickLine={false}
            axisLine={false}
            width={44}
            tickFormatter={(v: number) => `${v}%`}
          />
        )}
        <Tooltip
          {...TOOLTIP}
          labelFormatter={(v) => `${Number(v).toFixed(1)} s after load start`}
          formatter={(v) => (metric === "replicas" ? String(v) : `${Number(v).toFixed(1)} %`)}
        />
        {lines.map((l) => (
          <Line
            key={l.key}
            name={l.label}
            data={l.points}
            dataKey="value"
            type={metric === "replicas" ? "stepAfter" : "linear"}
            stroke={l.color}
            strokeDasharray={l.dash || undefined}
            strokeWidth={1.5}
            dot={false}
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </ChartCard>
  );
}

export const InfraReplicasChart = (p: Props) => <InfraChart {...p} metric="replicas" />;
export const InfraCpuChart = (p: Props) => <InfraChart {...p} metric="cpu" />;
