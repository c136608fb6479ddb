"use client";

import { STORED_QUANTILE_KEYS, type StoredQuantileKey, type TimeBucket } from "@opsbench/core";
import type { LoadBucket } from "@opsbench/db";
import { useState } from "react";
import { Area, ComposedChart, Line, LineChart, Tooltip, YAxis } from "recharts";
import { ChartCard, LIVE_CHART } from "@/components/charts/chart-card";
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
  ZoomBadge,
} from "@/components/charts/time-panel";
import { ZoomDrag } from "@/components/charts/zoom-drag";
import { AXIS, DASHES, TOOLTIP } from "@/components/charts/palette";

type Range = { fromSeconds: number; toSeconds: number };

/**
 * The x range of a run's time panel (its HTTP and infra rows alike): the zoom, else 0 to the load's end, or to the
 * target's last infra point when the platform was watched longer (its scale-in after the load stays on the axis).
 */
export function runChartRange(
  series: { bucketSeconds: number; points: TimeBucket[]; window: Range | null },
  loadSeconds: number | null,
  lastInfraSecond: number | null = null,
): Range {
  if (series.window) return series.window;
  const last = series.points.at(-1);
  const loadEnd = loadSeconds ?? (last ? last.offsetSeconds + series.bucketSeconds : 1);
  return { fromSeconds: 0, toSeconds: Math.max(1, Math.ceil(loadEnd), Math.floor(lastInfraSecond ?? 0) + 1) };
}

/** The run page's crosshair: every time row (these and the infra rows) moves it together, matched by x value. */
export const RUN_SYNC = { syncId: "run", syncMethod: "value" as const };

const LOAD_SERIES = [
  { key: "load", label: "offered load", dash: DASHES[2]!, color: "#7c3aed" },
  { key: "ok", label: "successful req/s", dash: "", color: "#3b82f6" },
  { key: "err", label: "failed req/s", dash: DASHES[1]!, color: "#dc2626" },
] as const;

/**
 * The run's time panel (x = seconds from the load start, one range for every row, one crosshair): the offered load
 * (VUs, or scheduled arrivals/s for an open workload) with successful and failed requests per second, latency (a
 * quantile picker, a log scale) and goodput. Every bucket is one dot in the DOM (`.recharts-line-dot`) while few.
 */
export function RunCharts({
  points,
  bucketSeconds,
  window = null,
  load = { closedLoop: false, points: [] },
  range,
  loadSeconds = null,
}: {
  points: TimeBucket[];
  bucketSeconds: number;
  window?: Range | null;
  load?: { closedLoop: boolean; points: LoadBucket[] };
  range?: Range;
  loadSeconds?: number | null;
}) {
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
  const x = range ?? runChartRange({ bucketSeconds, points, window }, loadSeconds);
  const n = points.length;
  const loadUnit = load.closedLoop ? "VUs" : "arrivals/s";
  const loadBy = new Map(load.points.map((b) => [b.offsetSeconds, load.closedLoop ? b.vus : b.arrivalsPerSecond]));
  const offsets = [...new Set([...points.map((p) => p.offsetSeconds), ...loadBy.keys()])].sort((a, b) => a - b);
  const byOffset = new Map(points.map((p) => [p.offsetSeconds, p]));
  const rows = offsets.map((offsetSeconds) => {
    const b = byOffset.get(offsetSeconds);
    const ok = b ? (b.requests * (b.goodput ?? 0)) / 100 : null;
    return {
      offsetSeconds,
      requests: b?.requests ?? null,
      ok: ok === null ? null : ok / bucketSeconds,
      err: b && ok !== null ? (b.requests - ok) / bucketSeconds : null,
      load: loadBy.get(offsetSeconds) ?? null,
      p50Ms: b?.p50Ms ?? null,
      p95Ms: b?.p95Ms ?? null,
      p99Ms: b?.p99Ms ?? null,
      goodput: b?.goodput ?? null,
    };
  });
  const hasLoad = loadBy.size > 0;
  const partial = partialBucket(x, bucketSeconds, loadSeconds);
  const dots = n <= MAX_DOTS;
  const bucketLabel = (v: unknown) => `${v}–${Number(v) + bucketSeconds} s after load start`;
  const stepArea = (key: "ok", color: string) => (
    <Area
      dataKey={key}
      name="successful req/s"
      type="stepAfter"
      stroke={color}
      fill={color}
      fillOpacity={0.08}
      strokeWidth={1.4}
      dot={dots ? { r: 1.5, strokeWidth: 1 } : false}
      connectNulls
      isAnimationActive={false}
    />
  );
  return (
    <div data-testid="run-time-panel" data-bucket-seconds={bucketSeconds} className="grid grid-cols-1 gap-2">
      {window && (
        <div data-testid="run-zoom">
          <ZoomBadge window={window} testId="run-zoom-badge" />
        </div>
      )}
      {partial && (
        <p data-testid="run-partial-bucket" className="text-2xs text-zinc-500">
          Hatched: the last bucket ({partial.fromSeconds}–{partial.fromSeconds + bucketSeconds} s) holds {partial.seconds} s of{" "}
          {bucketSeconds}.
        </p>
      )}
      <ChartCard
        title={`Load (${loadUnit}, right) and requests per second (left; ${bucketSeconds} s buckets)`}
        testId="chart-requests"
        points={n}
        resolutionSeconds={bucketSeconds}
        {...LIVE_CHART}
        height={170}
      >
        <ComposedChart data={rows} margin={panelMargin(hasLoad)} {...RUN_SYNC}>
          {hatchDefs("run-hatch-requests")}
          {horizontalGrid}
          {panelXAxis(x)}
          <YAxis tick={AXIS} tickLine={false} axisLine={false} width={PANEL_Y_WIDTH} tickFormatter={compact} />
          {hasLoad && rightAxis({ tickFormatter: compact })}
          <Tooltip {...TOOLTIP} labelFormatter={bucketLabel} formatter={(v) => (v == null ? "—" : Number(Number(v).toPrecision(4)))} />
          {!hidden.has("ok") && stepArea("ok", "#3b82f6")}
          {!hidden.has("err") && (
            <Line
              dataKey="err"
              name="failed req/s"
              type="stepAfter"
              stroke="#dc2626"
              strokeDasharray={DASHES[1]}
              strokeWidth={1.2}
              dot={false}
              connectNulls
              isAnimationActive={false}
            />
          )}
          {hasLoad && !hidden.has("load") && (
            <Line
              yAxisId="right"
              dataKey="load"
              name={`load (${loadUnit})`}
              type="stepAfter"
              stroke="#7c3aed"
              strokeDasharray={DASHES[2]}
              strokeWidth={1.8}
              dot={false}
              connectNulls
              isAnimationActive={false}
              className="load-line"
            />
          )}
          {partialBand(partial, bucketSeconds, "run-hatch-requests")}
          <ZoomDrag />
        </ComposedChart>
      </ChartCard>
      <div className="-mt-1 px-1">
        <ToggleLegend
          testId="run-load-legend"
          items={LOAD_SERIES.filter((m) => m.key !== "load" || hasLoad).map((m) => ({
            key: m.key,
            label: m.key === "load" ? `offered load (${loadUnit})` : m.label,
            color: m.color,
            dash: m.dash,
            hidden: hidden.has(m.key),
          }))}
          onToggle={toggle}
        />
      </div>
      <ChartCard
        title={`${quantile} latency (ms${logScale ? ", log scale" : ""}, ${bucketSeconds} s buckets)`}
        testId="chart-p95"
        points={n}
        resolutionSeconds={bucketSeconds}
        {...LIVE_CHART}
        height={180}
      >
        <LineChart data={rows} margin={panelMargin(false)} {...RUN_SYNC}>
          {hatchDefs("run-hatch-latency")}
          {horizontalGrid}
          {panelXAxis(x)}
          {latencyYAxis(logScale)}
          <Tooltip
            {...TOOLTIP}
            labelFormatter={bucketLabel}
            formatter={(v) => [v == null ? "—" : `${Number(v).toFixed(2)} ms`, quantile]}
          />
          {bucketLine({ dataKey: `${quantile}Ms`, stroke: "#f59e0b", dots })}
          {partialBand(partial, bucketSeconds, "run-hatch-latency")}
          <ZoomDrag />
        </LineChart>
      </ChartCard>
      <div className="-mt-1 flex flex-wrap items-center gap-2 px-1 text-2xs text-zinc-700">
        <LatencyControls
          quantiles={STORED_QUANTILE_KEYS}
          quantile={quantile}
          onQuantile={setQuantile}
          logScale={logScale}
          onLogScale={setLogScale}
          testIdPrefix="run"
        />
      </div>
      <ChartCard title="Goodput (% 2xx)" testId="chart-goodput" points={n} resolutionSeconds={bucketSeconds} {...LIVE_CHART} height={120}>
        <LineChart data={rows} margin={panelMargin(false)} {...RUN_SYNC}>
          {horizontalGrid}
          {panelXAxis(x)}
          <YAxis tick={AXIS} tickLine={false} axisLine={false} width={PANEL_Y_WIDTH} domain={[goodputFloor, 100]} tickCount={4} />
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
