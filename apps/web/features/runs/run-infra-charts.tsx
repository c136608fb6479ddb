"use client";

import { kindDefinition, observedDetail } from "@opsbench/core";
import type { InfraSeriesPoint, RunInfra } from "@opsbench/db";
import { Bar, BarChart, Legend, Line, LineChart, Tooltip, YAxis } from "recharts";
import { fmtCount, NO_VALUE } from "@/lib/format";
import { ChartCard, LIVE_CHART } from "@/components/charts/chart-card";
import { horizontalGrid } from "@/components/charts/chart-parts";
import { PANEL_Y_WIDTH, panelMargin, panelXAxis } from "@/components/charts/time-panel";
import { RUN_SYNC } from "./run-charts";
import { AXIS, TOOLTIP } from "@/components/charts/palette";

const UNIT_COLORS = ["#60a5fa", "#f87171", "#34d399", "#f59e0b", "#a78bfa", "#22d3ee", "#f472b6", "#84cc16"];

const legend = <Legend iconSize={8} wrapperStyle={{ fontSize: 13 }} />;

/** A count that holds until the next point (a second later locally, a minute for CloudWatch or Cloud Monitoring). */
const stepLine = (dataKey: keyof InfraSeriesPoint, name: string, stroke: string, strokeWidth: number) => (
  <Line type="stepAfter" dataKey={dataKey} name={name} stroke={stroke} strokeWidth={strokeWidth} dot={false} isAnimationActive={false} />
);

/** The platform's own resolution: the usual gap between its points (1 s for local targets, 60 s for cloud metrics). */
export function infraResolutionSeconds(points: ReadonlyArray<{ offsetSeconds: number }>): number | null {
  const gaps = points.slice(1).map((p, i) => p.offsetSeconds - points[i]!.offsetSeconds);
  const m = median(gaps.filter((g) => g > 0));
  return m === null ? null : Math.max(1, Math.round(m));
}

const resolutionText = (s: number | null) => (s === null || s <= 1 ? "one point a second" : `one point every ${s} s`);

const median = (xs: number[]) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * The platform's points in the time panel's buckets (a point a second locally, drawn in 10 s buckets for a long run):
 * per bucket the most replicas, desired, queued and in flight, the mean CPU, and the cold starts, 429s and billed ms added.
 * Points already as coarse as the buckets (a CloudWatch minute) stay as they are.
 */
function inBuckets(points: InfraSeriesPoint[], bucketSeconds: number): InfraSeriesPoint[] {
  if (bucketSeconds <= (infraResolutionSeconds(points) ?? 1)) return points;
  const byBucket = new Map<number, InfraSeriesPoint[]>();
  for (const p of points) {
    const at = Math.floor(p.offsetSeconds / bucketSeconds) * bucketSeconds;
    byBucket.set(at, [...(byBucket.get(at) ?? []), p]);
  }
  const max = (xs: Array<number | null>) => (xs.some((x) => x !== null) ? Math.max(...xs.filter((x): x is number => x !== null)) : null);
  const sum = (xs: Array<number | null>) => (xs.some((x) => x !== null) ? xs.reduce<number>((a, x) => a + (x ?? 0), 0) : null);
  const mean = (xs: Array<number | null>) => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
  };
  return [...byBucket.entries()].map(([offsetSeconds, ps]) => {
    const last = ps.at(-1)!;
    const units = Math.max(...ps.map((p) => p.perUnitCpu.length));
    return {
      ...last,
      offsetSeconds,
      replicas: Math.max(...ps.map((p) => p.replicas)),
      cpuPercent: mean(ps.map((p) => p.cpuPercent)),
      perUnitCpu: Array.from({ length: units }, (_, i) => mean(ps.map((p) => p.perUnitCpu[i] ?? null))),
      desired: max(ps.map((p) => p.desired)),
      starting: max(ps.map((p) => p.starting)),
      coldStarts: ps.reduce((a, p) => a + p.coldStarts, 0),
      coldStartMs: ps.flatMap((p) => p.coldStartMs),
      queued: max(ps.map((p) => p.queued)),
      queuedPeak: max(ps.map((p) => p.queuedPeak ?? p.queued)),
      inFlight: max(ps.map((p) => p.inFlight)),
      rejected: sum(ps.map((p) => p.rejected)),
      billedMs: sum(ps.map((p) => p.billedMs)),
      scalingEvents: ps.flatMap((p) => p.scalingEvents),
    };
  });
}

/** One row per point, with a `cpu:<unit>` column per replica (by id) or instance (by position). */
function cpuRows(points: InfraSeriesPoint[]) {
  const units: string[] = [];
  const rows = points.map((p) => {
    const row: Record<string, number | null> = { offsetSeconds: p.offsetSeconds, cpuPercent: p.cpuPercent };
    p.perUnitCpu.forEach((v, i) => {
      const key = `cpu:${p.unitIds ? `replica ${p.unitIds[i]}` : `instance ${i + 1}`}`;
      if (!units.includes(key)) units.push(key);
      row[key] = v;
    });
    return row;
  });
  return { rows, units };
}

/**
 * The target's infra timeline under the latency charts (the provider's observe() points:
 * a second apart locally, a minute from CloudWatch / Cloud Monitoring, drawn as steps at
 * that resolution): replicas or instances, CPU (average and per replica/instance), and for
 * functions cold starts and the queue. x = seconds after the load started, as in the
 * charts above (which are in 10 s buckets).
 */
export function RunInfraCharts({
  infra,
  targetKind,
  range,
  bucketSeconds,
}: {
  infra: RunInfra | undefined;
  targetKind: string | null;
  /** The x range of the run's time panel (the zoom, else the load window): the same in every row. */
  range: { fromSeconds: number; toSeconds: number };
  /** The HTTP rows' bucket length: the infra points are drawn in the same buckets (inBuckets). */
  bucketSeconds: number;
}) {
  const all = infra?.points ?? [];
  const kind = infra?.kind ?? targetKind;
  // No points yet: only a kind on this machine (core kinds/: `place`) is sure to have some, so its empty charts show.
  if (all.length === 0 && kindDefinition(kind ?? "")?.place !== "local") return null;
  // A kind whose points carry per-instance CPU (core kinds/: `observes`) is drawn as instances, live and ready, with its queue.
  const instances = observedDetail(kind ?? "").has("perInstanceCpu");
  const inRange = all.filter((p) => p.offsetSeconds >= range.fromSeconds && p.offsetSeconds < range.toSeconds);
  const points = inBuckets(inRange, bucketSeconds);
  const xAxis = panelXAxis(range);
  const countAxis = (
    <YAxis
      tick={AXIS}
      tickLine={false}
      axisLine={false}
      width={PANEL_Y_WIDTH}
      allowDecimals={false}
      domain={[0, (max: number) => Math.max(1, max)]}
    />
  );
  const atLabel = (v: unknown) => `${Number(v).toFixed(1)} s after load start`;

  const peak = points.reduce((a, p) => Math.max(a, p.replicas), 0);
  const scaling = points.flatMap((p) => p.scalingEvents.map((e) => ({ ...e, at: p.offsetSeconds })));
  const coldMs = points.flatMap((p) => p.coldStartMs);
  const coldTotal = points.reduce((a, p) => a + p.coldStarts, 0);
  const queuePeak = points.reduce((a, p) => Math.max(a, p.queuedPeak ?? p.queued ?? 0), 0);
  const rejected = points.reduce((a, p) => a + (p.rejected ?? 0), 0);
  const billed = points.reduce((a, p) => a + (p.billedMs ?? 0), 0);
  const { rows: cpu, units } = cpuRows(points);
  const unitLabel = instances ? "instances" : "replicas";
  const resolution = infraResolutionSeconds(points);

  return (
    <section data-testid="run-infra" data-kind={kind ?? ""} className="space-y-2">
      <div className="flex flex-wrap items-baseline gap-x-6 gap-y-1 rounded-md border border-zinc-200 bg-white px-3 py-2 text-xs">
        <h2 className="font-medium text-zinc-600">
          Infrastructure{" "}
          <span className="font-normal text-zinc-400">
            ({kind ?? "target"}, {resolutionText(resolution)})
          </span>
        </h2>
        <span>
          peak {unitLabel}:{" "}
          <b data-testid="infra-peak" className="font-mono">
            {points.length ? peak : NO_VALUE}
          </b>
        </span>
        {!instances && (
          <span>
            scaling events: <b className="font-mono">{scaling.length}</b>
          </span>
        )}
        {instances && (
          <>
            <span>
              cold starts:{" "}
              <b data-testid="infra-cold-starts" className="font-mono">
                {coldTotal}
              </b>
              {coldMs.length > 0 && (
                <span className="text-zinc-500">
                  {" "}
                  (median {median(coldMs)!.toFixed(0)} ms, max {Math.max(...coldMs).toFixed(0)} ms)
                </span>
              )}
            </span>
            <span>
              max queue: <b className="font-mono">{queuePeak}</b>
            </span>
            <span>
              429s: <b className={`font-mono ${rejected > 0 ? "text-red-600" : ""}`}>{rejected}</b>
            </span>
            <span>
              billed: <b className="font-mono">{fmtCount(billed)}</b> ms
            </span>
          </>
        )}
      </div>
      <div className="grid grid-cols-1 gap-2">
        <ChartCard
          {...LIVE_CHART}
          className="min-w-0"
          title={instances ? "Instances (live, ready)" : "Replicas (ready, desired)"}
          testId="chart-replicas"
          points={points.length}
          resolutionSeconds={resolution}
          note={
            !instances && scaling.length > 0 ? (
              <span data-testid="infra-scaling-events">
                {scaling.slice(0, 8).map((e, i) => (
                  <span key={i} className="mr-2 font-mono">
                    {e.at.toFixed(0)}s: {e.from}→{e.to}
                    {e.reason ? ` (${e.reason})` : ""}
                  </span>
                ))}
                {scaling.length > 8 && <span>… {scaling.length - 8} more</span>}
              </span>
            ) : undefined
          }
        >
          <LineChart data={points} margin={panelMargin(false)} {...RUN_SYNC}>
            {horizontalGrid}
            {xAxis}
            {countAxis}
            <Tooltip {...TOOLTIP} labelFormatter={atLabel} />
            {legend}
            {stepLine("replicas", instances ? "live" : "ready", "#2563eb", 2)}
            <Line
              type="stepAfter"
              dataKey="desired"
              name={instances ? "ready" : "desired"}
              stroke="#a1a1aa"
              strokeDasharray="4 3"
              strokeWidth={1.5}
              dot={false}
              isAnimationActive={false}
              connectNulls
            />
          </LineChart>
        </ChartCard>
        <ChartCard
          {...LIVE_CHART}
          className="min-w-0"
          title={`CPU (% of one core: average and per ${instances ? "instance" : "replica"})`}
          testId="chart-cpu"
          points={points.filter((p) => p.cpuPercent !== null).length}
          resolutionSeconds={infraResolutionSeconds(points.filter((p) => p.cpuPercent !== null))}
        >
          <LineChart data={cpu} margin={panelMargin(false)} {...RUN_SYNC}>
            {horizontalGrid}
            {xAxis}
            <YAxis
              tick={AXIS}
              tickLine={false}
              axisLine={false}
              width={PANEL_Y_WIDTH}
              domain={[0, (max: number) => Math.max(10, Math.ceil(max / 10) * 10)]}
            />
            <Tooltip
              {...TOOLTIP}
              labelFormatter={atLabel}
              formatter={(v, name) => [v == null ? "—" : `${Number(v).toFixed(1)} %`, String(name)]}
            />
            {legend}
            {units.slice(0, 16).map((u, i) => (
              // A sample is the platform's value for its whole period (a CloudWatch minute): a step, not a line through 1 s points it does not have.
              <Line
                key={u}
                type="stepAfter"
                connectNulls
                dataKey={u}
                name={u.replace(/^cpu:/, "")}
                stroke={UNIT_COLORS[i % UNIT_COLORS.length]}
                strokeWidth={1.25}
                dot={false}
                isAnimationActive={false}
              />
            ))}
            <Line
              type="stepAfter"
              connectNulls
              dataKey="cpuPercent"
              name="average"
              stroke="#18181b"
              strokeWidth={2}
              strokeDasharray="5 3"
              dot={false}
              isAnimationActive={false}
            />
          </LineChart>
        </ChartCard>
        {instances ? (
          <ChartCard
            {...LIVE_CHART}
            className="min-w-0"
            title="Cold starts (per second)"
            testId="chart-cold-starts"
            points={points.length}
            resolutionSeconds={resolution}
            note={
              coldMs.length > 0 ? (
                <span className="font-mono">
                  durations:{" "}
                  {coldMs
                    .slice(0, 12)
                    .map((m) => `${m.toFixed(0)} ms`)
                    .join(", ")}
                  {coldMs.length > 12 ? ", …" : ""}
                </span>
              ) : (
                "no cold start during the load"
              )
            }
          >
            <BarChart data={points} margin={panelMargin(false)} {...RUN_SYNC}>
              {horizontalGrid}
              {xAxis}
              {countAxis}
              <Tooltip
                {...TOOLTIP}
                labelFormatter={atLabel}
                cursor={{ fill: "#f4f4f5" }}
                formatter={(v, _n, item) => {
                  const ms = (item?.payload as InfraSeriesPoint | undefined)?.coldStartMs ?? [];
                  return [`${v}${ms.length ? ` (${ms.map((m) => `${m.toFixed(0)} ms`).join(", ")})` : ""}`, "cold starts"];
                }}
              />
              <Bar dataKey="coldStarts" name="cold starts" fill="#ef4444" isAnimationActive={false} />
            </BarChart>
          </ChartCard>
        ) : null}
        {instances && (
          <ChartCard
            {...LIVE_CHART}
            className="min-w-0"
            title="Queue and requests in flight"
            testId="chart-queue"
            points={points.length}
            resolutionSeconds={resolution}
          >
            <LineChart data={points} margin={panelMargin(false)} {...RUN_SYNC}>
              {horizontalGrid}
              {xAxis}
              {countAxis}
              <Tooltip {...TOOLTIP} labelFormatter={atLabel} />
              {legend}
              {stepLine("inFlight", "in flight", "#2563eb", 1.5)}
              {stepLine("queuedPeak", "queued (peak)", "#f59e0b", 1.5)}
              {stepLine("rejected", "429s", "#ef4444", 1)}
            </LineChart>
          </ChartCard>
        )}
      </div>
    </section>
  );
}
