"use client";

// The comparison's charts: one time panel (load with successful and failed requests, latency, goodput, replicas and
// CPU, stacked on one x axis of seconds after the load start, in one bucket length chosen by the span shown, with a
// crosshair across the rows), the latency distribution (CDF, log x axis). Each group has one colour.
import { STORED_QUANTILE_KEYS, type StoredQuantileKey } from "@opsbench/core";
import type { ComparisonGroup } from "@opsbench/db";
import { type ReactNode, useState } from "react";
import { Area, CartesianGrid, ComposedChart, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { type CompareData, unpackLoad } from "@/features/compare/compare-data";
import type { ChartLegendItem } from "@/lib/export/chart-image";
import { comparisonTable } from "@/lib/export/comparison-tables";
import { ChartCard } from "@/components/charts/chart-card";
import { bucketLine, goodputFloor, horizontalGrid } from "@/components/charts/chart-parts";
import { MAX_DOTS } from "@/components/charts/chart-series";
import {
  compact,
  hatchDefs,
  latencyYAxis,
  LatencyControls,
  PANEL_Y_WIDTH,
  panelMargin,
  panelXAxis,
  partialBand,
  partialBucket,
  rightAxis,
  ToggleLegend,
} from "@/components/charts/time-panel";
import { ZoomDrag } from "@/components/charts/zoom-drag";
import { AXIS, DASHES, GRID, groupColor, TOOLTIP } from "@/components/charts/palette";

type Props = { data: CompareData; exportable?: boolean };

type PanelRow = Record<string, number | null>;

const groupLegend = (groups: ComparisonGroup[]): ChartLegendItem[] => groups.map((g, i) => ({ label: g.label, color: groupColor(i) }));

/** The bucket length of the series shown (10 s without a window: the share page's stored series). */
const bucketOf = (data: CompareData) => data.chart?.bucketSeconds ?? 10;

/** Per group and bucket, the runs' infra points: each run's most replicas and mean CPU in the bucket, then their mean. */
function infraBuckets(g: ComparisonGroup, bucketSeconds: number) {
  const perRun = new Map<string, Map<number, { replicas: number; cpu: number[] }>>();
  for (const p of g.infra) {
    const at = Math.floor(p.offsetSeconds / bucketSeconds) * bucketSeconds;
    const run = perRun.get(p.runId) ?? new Map<number, { replicas: number; cpu: number[] }>();
    perRun.set(p.runId, run);
    const b = run.get(at) ?? { replicas: 0, cpu: [] };
    run.set(at, b);
    b.replicas = Math.max(b.replicas, p.replicas);
    if (p.cpuPercent !== null) b.cpu.push(p.cpuPercent);
  }
  const out = new Map<number, { replicas: number; cpu: number | null }>();
  const offsets = [...new Set([...perRun.values()].flatMap((r) => [...r.keys()]))];
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  for (const at of offsets) {
    const runs = [...perRun.values()].map((r) => r.get(at)).filter((b) => b !== undefined);
    out.set(at, {
      replicas: Math.round(mean(runs.map((b) => b.replicas))! * 10) / 10,
      cpu: mean(runs.flatMap((b) => (b.cpu.length ? [mean(b.cpu)!] : []))),
    });
  }
  return out;
}

/** One row per bucket start with every group's columns: `<metric>_<group>`. */
function panelRows(data: CompareData) {
  const bucket = bucketOf(data);
  const loads = data.groups.map((_, i) => {
    const packed = data.chart?.load?.[i];
    return new Map(packed ? unpackLoad(packed).map((b) => [b.offsetSeconds, b.value]) : []);
  });
  const infra = data.groups.map((g) => infraBuckets(g, bucket));
  const offsets = [
    ...new Set([
      ...data.groups.flatMap((g) => g.series.map((b) => b.offsetSeconds)),
      ...loads.flatMap((l) => [...l.keys()]),
      ...infra.flatMap((m) => [...m.keys()]),
    ]),
  ].sort((a, b) => a - b);
  const byOffset = data.groups.map((g) => new Map(g.series.map((b) => [b.offsetSeconds, b])));
  return offsets.map((offsetSeconds) => {
    const row: PanelRow = { offsetSeconds };
    data.groups.forEach((_, i) => {
      const b = byOffset[i]!.get(offsetSeconds);
      const ok = b && b.goodput !== null ? (b.requests * b.goodput) / 100 : null;
      row[`ok_${i}`] = ok === null ? (b ? 0 : null) : ok / bucket;
      row[`err_${i}`] = b ? (b.requests - (ok ?? 0)) / bucket : null;
      row[`req_${i}`] = b ? b.requests : null;
      // A stored quantile's per-bucket column (TimeBucket's `<q>Ms`): a quantile without one does not compile.
      for (const q of STORED_QUANTILE_KEYS) row[`${q}_${i}`] = b?.[`${q}Ms` as const] ?? null;
      row[`good_${i}`] = b?.goodput ?? null;
      row[`load_${i}`] = loads[i]!.get(offsetSeconds) ?? null;
      const inf = infra[i]!.get(offsetSeconds);
      row[`rep_${i}`] = inf?.replicas ?? null;
      row[`cpu_${i}`] = inf?.cpu ?? null;
    });
    return row;
  });
}

/** How many points the columns `<key>_<group>` hold (all groups), and the most any one group's holds. */
const pointsOf = (rows: PanelRow[], key: string, n: number) => {
  const per = Array.from({ length: n }, (_, i) => rows.filter((r) => r[`${key}_${i}`] != null).length);
  return { points: per.reduce((a, b) => a + b, 0), seriesPoints: Math.max(0, ...per) };
};

const fixed = (d: number, unit: string) => (v: unknown) => (v == null ? "—" : `${Number(v).toFixed(d)} ${unit}`);

/** The time panel's metrics a legend entry hides or shows in the load row. */
const LOAD_SERIES = [
  { key: "load", label: "offered load", dash: DASHES[2]! },
  { key: "ok", label: "successful req/s", dash: "" },
  { key: "err", label: "failed req/s", dash: DASHES[1]! },
] as const;

/**
 * The comparison over time, one panel: rows on one x axis (the zoom, else 0 to the longest run's end) in one bucket
 * length (1 s up to 5 min shown, 10 s up to 50 min, else 1 min: at most 300 points), with one crosshair (syncId).
 * The legend's groups and the load row's series hide and show; latency has a quantile picker and a log scale.
 */
export function CompareTimePanel({ data, exportable, controls = true }: Props & { controls?: boolean }) {
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const [quantile, setQuantile] = useState<StoredQuantileKey>("p95");
  const [logScale, setLogScale] = useState(false);
  const toggle = (key: string) =>
    setHidden((h) => {
      const next = new Set(h);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const n = data.groups.length;
  const bucket = bucketOf(data);
  const rows = panelRows(data);
  const offsets = rows.map((r) => r.offsetSeconds ?? 0);
  const range = data.chart?.range ?? {
    fromSeconds: Math.min(0, ...offsets),
    toSeconds: Math.max(1, ...offsets.map((o) => o + bucket)),
  };
  const longest = data.chart?.loadSeconds?.some((s) => s !== null)
    ? Math.max(...(data.chart.loadSeconds.filter((s) => s !== null) as number[]))
    : null;
  const partial = partialBucket(range, bucket, longest);
  const dots = rows.length <= MAX_DOTS;
  const shownGroup = (i: number) => !hidden.has(`g${i}`);
  const closedLoop = data.chart?.load?.map((l) => l.closedLoop) ?? [];
  const loadUnit = closedLoop.length && closedLoop.every((c) => c) ? "VUs" : closedLoop.some((c) => c) ? "VUs / arrivals/s" : "arrivals/s";
  const hasLoad = rows.some((r) => Array.from({ length: n }, (_, i) => r[`load_${i}`]).some((v) => v != null));
  const hasReplicas = data.groups.some((g) => g.infra.length > 0);
  const hasCpu = data.groups.some((g) => g.infra.some((p) => p.cpuPercent !== null));
  const bucketLabel = (v: unknown) => `${v}–${Number(v) + bucket} s after load start`;
  const sync = { syncId: "cmp-time", syncMethod: "value" as const };
  const common = { bucket, exportable, partial, range };
  const groupLines = (key: string, extra: Partial<Parameters<typeof bucketLine>[0]> = {}) =>
    data.groups.flatMap((g, i) =>
      shownGroup(i)
        ? [bucketLine({ key: `${key}_${i}`, name: g.label, dataKey: `${key}_${i}`, stroke: groupColor(i), dots, ...extra })]
        : [],
    );
  return (
    <section
      data-testid="cmp-time-panel"
      data-bucket-seconds={bucket}
      className="space-y-2 rounded-md border border-zinc-200 bg-zinc-50 p-2"
    >
      <div className="flex flex-wrap items-center justify-between gap-2 px-1">
        <h2 className="text-xs font-semibold text-zinc-700">
          Over time{" "}
          <span className="font-normal text-zinc-500">(seconds after the load start, {bucket} s buckets; drag across a row to zoom)</span>
        </h2>
        <ToggleLegend
          testId="cmp-time-legend"
          items={data.groups.map((g, i) => ({ key: `g${i}`, label: g.label, color: groupColor(i), hidden: !shownGroup(i) }))}
          onToggle={toggle}
        />
      </div>
      {partial && (
        <p data-testid="cmp-partial-bucket" className="px-1 text-2xs text-zinc-500">
          Hatched: the last bucket ({partial.fromSeconds}–{partial.fromSeconds + bucket} s) holds {partial.seconds} s of {bucket}; its rates
          are per second of what it holds, but read it with care.
        </p>
      )}
      <PanelRowCard
        {...common}
        title={`Load (${loadUnit}, right) and requests (per second, left)`}
        testId="cmp-chart-requests"
        fileName="load-and-requests"
        counted={pointsOf(rows, "req", n)}
        table={() => comparisonTable(data, "series")}
        height={170}
        controls={
          <ToggleLegend
            testId="cmp-load-legend"
            items={LOAD_SERIES.filter((m) => m.key !== "load" || hasLoad).map((m) => ({
              key: m.key,
              label: m.key === "load" ? `offered load (${loadUnit})` : m.label,
              color: "#52525b",
              dash: m.dash,
              hidden: hidden.has(m.key),
            }))}
            onToggle={toggle}
          />
        }
      >
        <ComposedChart data={rows} margin={panelMargin(hasLoad)} {...sync}>
          {hatchDefs("hatch-requests")}
          {horizontalGrid}
          {panelXAxis(range)}
          <YAxis tick={AXIS} tickLine={false} axisLine={false} width={PANEL_Y_WIDTH} tickFormatter={compact} />
          {hasLoad && rightAxis({ tickFormatter: compact })}
          <Tooltip {...TOOLTIP} labelFormatter={bucketLabel} formatter={(v) => (v == null ? "—" : Number(Number(v).toPrecision(4)))} />
          {data.groups.flatMap((g, i) =>
            shownGroup(i)
              ? [
                  hidden.has("ok") ? null : (
                    <Area
                      key={`ok_${i}`}
                      name={`${g.label} successful req/s`}
                      dataKey={`ok_${i}`}
                      type="stepAfter"
                      stroke={groupColor(i)}
                      fill={groupColor(i)}
                      fillOpacity={0.06}
                      strokeWidth={1.4}
                      dot={dots ? { r: 1.5, strokeWidth: 1 } : false}
                      connectNulls
                      isAnimationActive={false}
                    />
                  ),
                  hidden.has("err") ? null : (
                    <Line
                      key={`err_${i}`}
                      name={`${g.label} failed req/s`}
                      dataKey={`err_${i}`}
                      type="stepAfter"
                      stroke={groupColor(i)}
                      strokeDasharray={DASHES[1]}
                      strokeWidth={1.2}
                      dot={false}
                      connectNulls
                      isAnimationActive={false}
                    />
                  ),
                  hasLoad && !hidden.has("load") ? (
                    <Line
                      key={`load_${i}`}
                      name={`${g.label} load (${closedLoop[i] ? "VUs" : "arrivals/s"})`}
                      yAxisId="right"
                      dataKey={`load_${i}`}
                      type="stepAfter"
                      stroke={groupColor(i)}
                      strokeDasharray={DASHES[2]}
                      strokeOpacity={0.75}
                      strokeWidth={1.6}
                      dot={false}
                      connectNulls
                      isAnimationActive={false}
                      className="load-line"
                    />
                  ) : null,
                ]
              : [],
          )}
          {partialBand(partial, bucket, "hatch-requests")}
          <ZoomDrag />
        </ComposedChart>
      </PanelRowCard>
      <PanelRowCard
        {...common}
        title={`Latency ${quantile} (ms${logScale ? ", log scale" : ""}, ${bucket} s buckets)`}
        testId="cmp-chart-latency"
        fileName="latency-over-time"
        counted={pointsOf(rows, quantile, n)}
        table={() => comparisonTable(data, "series")}
        height={190}
        controls={
          // The share page and the printed report have no form controls: they show p95 on a linear scale.
          controls && (
            <LatencyControls
              quantiles={STORED_QUANTILE_KEYS}
              quantile={quantile}
              onQuantile={setQuantile}
              logScale={logScale}
              onLogScale={setLogScale}
              testIdPrefix="cmp"
            />
          )
        }
      >
        <LineChart data={rows} margin={panelMargin(false)} {...sync}>
          {hatchDefs("hatch-latency")}
          {horizontalGrid}
          {panelXAxis(range)}
          {latencyYAxis(logScale)}
          <Tooltip {...TOOLTIP} labelFormatter={bucketLabel} formatter={fixed(2, "ms")} />
          {groupLines(quantile, { strokeWidth: 1.8 })}
          {partialBand(partial, bucket, "hatch-latency")}
          <ZoomDrag />
        </LineChart>
      </PanelRowCard>
      <PanelRowCard
        {...common}
        title="Goodput (% 2xx)"
        testId="cmp-chart-goodput"
        fileName="goodput-over-time"
        counted={pointsOf(rows, "good", n)}
        table={() => comparisonTable(data, "series")}
        height={120}
      >
        <LineChart data={rows} margin={panelMargin(false)} {...sync}>
          {hatchDefs("hatch-goodput")}
          {horizontalGrid}
          {panelXAxis(range)}
          <YAxis tick={AXIS} tickLine={false} axisLine={false} width={PANEL_Y_WIDTH} domain={[goodputFloor, 100]} tickCount={4} />
          <Tooltip {...TOOLTIP} labelFormatter={bucketLabel} formatter={fixed(2, "%")} />
          {groupLines("good")}
          {partialBand(partial, bucket, "hatch-goodput")}
          <ZoomDrag />
        </LineChart>
      </PanelRowCard>
      {hasReplicas && (
        <PanelRowCard
          {...common}
          title="Replicas / instances (most in a bucket, mean over a group's runs)"
          testId="cmp-chart-infra"
          fileName="infra-replicas"
          counted={pointsOf(rows, "rep", n)}
          table={() => comparisonTable(data, "infra")}
          height={120}
        >
          <LineChart data={rows} margin={panelMargin(false)} {...sync}>
            {horizontalGrid}
            {panelXAxis(range)}
            <YAxis
              tick={AXIS}
              tickLine={false}
              axisLine={false}
              width={PANEL_Y_WIDTH}
              allowDecimals={false}
              domain={[0, (max: number) => Math.max(1, Math.ceil(max))]}
            />
            <Tooltip {...TOOLTIP} labelFormatter={bucketLabel} />
            {groupLines("rep", { dots: false })}
            <ZoomDrag />
          </LineChart>
        </PanelRowCard>
      )}
      {hasCpu && (
        <PanelRowCard
          {...common}
          title="Target CPU (mean % per replica/instance)"
          testId="cmp-chart-infra-cpu"
          fileName="infra-cpu"
          counted={pointsOf(rows, "cpu", n)}
          table={() => comparisonTable(data, "infra")}
          height={120}
        >
          <LineChart data={rows} margin={panelMargin(false)} {...sync}>
            {horizontalGrid}
            {panelXAxis(range)}
            <YAxis
              tick={AXIS}
              tickLine={false}
              axisLine={false}
              width={PANEL_Y_WIDTH}
              domain={[0, "auto"]}
              tickFormatter={(v: number) => `${v}%`}
            />
            <Tooltip {...TOOLTIP} labelFormatter={bucketLabel} formatter={fixed(1, "%")} />
            {groupLines("cpu", { dots: false })}
            <ZoomDrag />
          </LineChart>
        </PanelRowCard>
      )}
    </section>
  );
}

/** One row of the time panel: a chart card (export buttons, data-points for tests) with its own controls. */
function PanelRowCard({
  title,
  testId,
  fileName,
  counted,
  table,
  height,
  controls,
  exportable,
  bucket,
  partial,
  range,
  children,
}: {
  title: string;
  testId: string;
  fileName: string;
  counted: { points: number; seriesPoints: number };
  table: () => ReturnType<typeof comparisonTable>;
  height: number;
  controls?: ReactNode;
  exportable?: boolean;
  bucket: number;
  partial: { fromSeconds: number } | null;
  range: { fromSeconds: number; toSeconds: number };
  children: ReactNode;
}) {
  return (
    <div data-range-from={range.fromSeconds} data-range-to={range.toSeconds} data-partial-from={partial?.fromSeconds} data-row={testId}>
      <ChartCard
        title={title}
        testId={testId}
        fileName={fileName}
        exportable={exportable}
        points={counted.points}
        seriesPoints={counted.seriesPoints}
        resolutionSeconds={bucket}
        height={height}
        table={table}
        controls={controls}
        className="break-inside-avoid"
      >
        {children}
      </ChartCard>
    </div>
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
