"use client";
// The trend page's charts (docs/trends.md): per metric each run a point with its 95% interval as an error bar, x by
// time or by commit, invalid runs hollow and grey, each change a vertical marker with its commit range; two points
// clicked (or ticked in the table) open their comparison.
import Link from "next/link";
import { useMemo, useState } from "react";
import { CartesianGrid, ErrorBar, ReferenceLine, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from "recharts";
import { ChartCard } from "@/components/charts/chart-card";
import { ScrollX } from "@/components/scroll-x";
import { CHART_MARGIN } from "@/components/charts/chart-parts";
import { AXIS, GRID, TOOLTIP } from "@/components/charts/palette";
import { fixed, fmtTime, NO_VALUE } from "@/lib/format";
import {
  changeCompareHref,
  changeX,
  commitRangeText,
  fmtRelative,
  type MetricField,
  pairCompareHref,
  runLabel,
  type SeriesPointsView,
  shortCommit,
  TREND_METRICS,
  type TrendChange,
  type TrendPoint,
  type XMode,
  xOf,
} from "./series-view";

const VALID = "#2563eb";
const INVALID = "#a1a1aa";
const CHANGE = "#dc2626";
const PICKED = "#d97706";

type Drawn = { id: string; x: number; y: number; err: [number, number] | null; label: string; index: number };

/** A metric's drawable points: those with a value; the error bar only where the run has an interval. */
function drawn(points: readonly TrendPoint[], field: MetricField, mode: XMode, valid: boolean): Drawn[] {
  return points.flatMap((p, index) => {
    const v = p[field];
    if (p.valid !== valid || v.value === null) return [];
    const err: [number, number] | null = v.low !== null && v.high !== null ? [v.value - v.low, v.high - v.value] : null;
    return [{ id: p.id, x: xOf(p, index, mode), y: v.value, err, label: runLabel(p, index), index }];
  });
}

function Hollow(props: { cx?: number; cy?: number; picked: boolean }) {
  const { cx = 0, cy = 0, picked } = props;
  return <circle cx={cx} cy={cy} r={4.5} fill="white" stroke={picked ? PICKED : INVALID} strokeWidth={picked ? 2.5 : 1.5} />;
}

function Solid(props: { cx?: number; cy?: number; picked: boolean }) {
  const { cx = 0, cy = 0, picked } = props;
  return <circle cx={cx} cy={cy} r={picked ? 6 : 4.5} fill={picked ? PICKED : VALID} stroke="white" strokeWidth={1} />;
}

function TrendChart({
  view,
  field,
  title,
  testId,
  decimals,
  mode,
  picked,
  onPick,
}: {
  view: SeriesPointsView;
  field: MetricField;
  title: string;
  testId: string;
  decimals: number;
  mode: XMode;
  picked: readonly string[];
  onPick: (id: string) => void;
}) {
  const valid = drawn(view.points, field, mode, true);
  const invalid = drawn(view.points, field, mode, false);
  const changes = view.changes.filter((c) => c.metric === field);
  const unit = view.points.find((p) => p[field].unit)?.[field].unit ?? "";
  const withoutInterval = [...valid, ...invalid].filter((d) => d.err === null).length;
  const n = view.points.length;
  const xTick = (v: number) =>
    mode === "time" ? new Date(v).toISOString().slice(5, 16).replace("T", " ") : (shortCommit(view.points[v]?.commit) ?? `#${v + 1}`);
  const pickId = (d: unknown) => {
    const id = (d as { payload?: Drawn } | undefined)?.payload?.id;
    if (id) onPick(id);
  };
  return (
    <ChartCard
      title={`${title}${unit && field === "costPerThousand" ? ` (${unit})` : ""}`}
      testId={testId}
      points={valid.length + invalid.length}
      emptyText={field === "costPerThousand" ? "no run of this series was priced" : "no data"}
      note={
        <>
          {invalid.length > 0 && <span data-testid={`${testId}-invalid`}>{invalid.length} invalid (hollow, grey). </span>}
          {withoutInterval > 0 && (
            <span>{withoutInterval} without an interval (no bar: the run is too short or its seconds too dependent). </span>
          )}
          {changes.map((c) => (
            <span key={c.runId} data-testid={`${testId}-change`} className="text-red-700">
              change {fmtRelative(c.relative)} at {commitRangeText(c)}.{" "}
            </span>
          ))}
        </>
      }
    >
      <ScatterChart margin={{ ...CHART_MARGIN, top: 16, right: 16 }}>
        <CartesianGrid stroke={GRID} vertical={false} />
        <XAxis
          dataKey="x"
          type="number"
          domain={mode === "time" ? ["dataMin", "dataMax"] : [-0.5, n - 0.5]}
          // A tick at each run (by time: its start; by commit: its slot), thinned by minTickGap where they crowd.
          ticks={view.points.map((p, i) => xOf(p, i, mode))}
          interval="preserveStartEnd"
          tickFormatter={xTick}
          tick={AXIS}
          tickLine={false}
          axisLine={{ stroke: GRID }}
          minTickGap={8}
          name={mode === "time" ? "time (UTC)" : "commit"}
        />
        <YAxis dataKey="y" type="number" tick={AXIS} tickLine={false} axisLine={false} width={56} domain={["auto", "auto"]} />
        <Tooltip
          {...TOOLTIP}
          cursor={false}
          formatter={(v: unknown) => fixed(typeof v === "number" ? v : null, decimals)}
          labelFormatter={() => ""}
        />
        {changes.map((c) => (
          <ReferenceLine
            key={c.runId}
            x={changeX(view.points, c, mode)}
            stroke={CHANGE}
            strokeDasharray="4 3"
            label={{ value: `${fmtRelative(c.relative)} ${commitRangeText(c)}`, position: "insideTopLeft", fontSize: 12, fill: CHANGE }}
          />
        ))}
        <Scatter
          name="valid runs"
          data={valid}
          fill={VALID}
          shape={(p: { cx?: number; cy?: number; payload?: Drawn }) => <Solid {...p} picked={picked.includes(p.payload?.id ?? "")} />}
          onClick={pickId}
          isAnimationActive={false}
          className="cursor-pointer"
        >
          <ErrorBar dataKey="err" direction="y" width={5} stroke={VALID} strokeWidth={1.2} />
        </Scatter>
        <Scatter
          name="invalid runs"
          data={invalid}
          fill={INVALID}
          shape={(p: { cx?: number; cy?: number; payload?: Drawn }) => <Hollow {...p} picked={picked.includes(p.payload?.id ?? "")} />}
          onClick={pickId}
          isAnimationActive={false}
          className="cursor-pointer"
        >
          <ErrorBar dataKey="err" direction="y" width={5} stroke={INVALID} strokeWidth={1.2} />
        </Scatter>
      </ScatterChart>
    </ChartCard>
  );
}

function TrendLegend() {
  return (
    <ul data-testid="trend-legend" className="flex flex-wrap items-center gap-x-4 gap-y-1 text-2xs text-zinc-600">
      <li className="inline-flex items-center gap-1">
        <svg width="12" height="12" aria-hidden>
          <circle cx="6" cy="6" r="4.5" fill={VALID} />
        </svg>
        valid run, bar: its 95% interval
      </li>
      <li className="inline-flex items-center gap-1">
        <svg width="12" height="12" aria-hidden>
          <circle cx="6" cy="6" r="4" fill="white" stroke={INVALID} strokeWidth="1.5" />
        </svg>
        invalid run (flagged or not succeeded): drawn apart, no part in change detection
      </li>
      <li className="inline-flex items-center gap-1">
        <svg width="18" height="12" aria-hidden>
          <line x1="9" y1="0" x2="9" y2="12" stroke={CHANGE} strokeWidth="1.5" strokeDasharray="3 2" />
        </svg>
        change, with its commit range
      </li>
      <li className="inline-flex items-center gap-1">
        <svg width="12" height="12" aria-hidden>
          <circle cx="6" cy="6" r="5" fill={PICKED} />
        </svg>
        picked
      </li>
    </ul>
  );
}

function Changes({ view }: { view: SeriesPointsView }) {
  if (view.changes.length === 0)
    return (
      <p data-testid="trend-no-changes" className="text-xs text-zinc-500">
        No change detected: no metric&apos;s level moved by more than its runs&apos; own intervals can tell.
      </p>
    );
  const metricName: Record<TrendChange["metric"], string> = {
    latency: `${view.metric} latency`,
    throughput: "successful req/s",
    costPerThousand: "cost per 1,000 successful requests",
  };
  return (
    <ul className="space-y-1 text-xs">
      {view.changes.map((c) => (
        <li
          key={`${c.metric}:${c.runId}`}
          data-testid="trend-change"
          data-metric={c.metric}
          className="flex flex-wrap items-baseline gap-x-2"
        >
          <span className="font-medium text-red-700">{fmtRelative(c.relative)}</span>
          <span>{metricName[c.metric]}</span>
          <span>
            ({fixed(c.before, 2)} → {fixed(c.after, 2)})
          </span>
          <span>
            commits <code data-testid="trend-change-commits">{commitRangeText(c)}</code>
          </span>
          <Link data-testid="trend-change-compare" href={changeCompareHref(c)} className="text-blue-600 hover:underline">
            before vs after ({c.beforeRunIds.length} vs {c.afterRunIds.length} runs)
          </Link>
        </li>
      ))}
    </ul>
  );
}

const cellValue = (v: TrendPoint["throughput"], decimals: number) =>
  v.value === null
    ? NO_VALUE
    : `${fixed(v.value, decimals)}${v.low !== null && v.high !== null ? ` [${fixed(v.low, decimals)}, ${fixed(v.high, decimals)}]` : ""}`;

export function SeriesTrend({ view }: { view: SeriesPointsView }) {
  const [mode, setMode] = useState<XMode>("time");
  const [picked, setPicked] = useState<string[]>([]);
  // Two at most: a third click starts a new pair from the newest pick.
  const pick = (id: string) =>
    setPicked((now) => (now.includes(id) ? now.filter((x) => x !== id) : now.length >= 2 ? [now[1]!, id] : [...now, id]));
  const pairHref = useMemo(
    () => (picked.length === 2 ? pairCompareHref(view.points, [picked[0]!, picked[1]!]) : null),
    [picked, view.points],
  );
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3">
        <fieldset className="inline-flex items-center gap-2 text-xs" data-testid="trend-x-mode">
          <legend className="sr-only">x axis</legend>
          <span className="text-zinc-600">x by</span>
          {(["time", "commit"] as const).map((m) => (
            <label key={m} className="inline-flex items-center gap-1">
              <input type="radio" name="trend-x" value={m} checked={mode === m} onChange={() => setMode(m)} />
              {m}
            </label>
          ))}
        </fieldset>
        <TrendLegend />
      </div>
      <div
        data-testid="trend-picked"
        data-picked={picked.length}
        className="rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2 text-xs"
      >
        {picked.length === 0 && "Click two points (or tick two runs below) to compare them."}
        {picked.length === 1 && "One run picked: pick another to compare them."}
        {pairHref && (
          <Link data-testid="trend-pair-compare" href={pairHref} className="font-medium text-blue-600 hover:underline">
            Compare the two picked runs
          </Link>
        )}
      </div>
      <Changes view={view} />
      <div className="grid gap-3 lg:grid-cols-2">
        {TREND_METRICS.map((m) => (
          <TrendChart
            key={m.field}
            view={view}
            field={m.field}
            title={m.title(view)}
            testId={m.testId}
            decimals={m.decimals}
            mode={mode}
            picked={picked}
            onPick={pick}
          />
        ))}
      </div>
      <ScrollX className="rounded-md border border-zinc-200 bg-white">
        <table data-testid="trend-points" className="w-full text-xs">
          <thead className="border-b border-zinc-200 bg-zinc-50 text-left text-2xs uppercase tracking-wide text-zinc-500">
            <tr>
              <th className="px-2 py-1.5">Pick</th>
              <th className="px-2 py-1.5">Run</th>
              <th className="px-2 py-1.5">Time (UTC)</th>
              <th className="px-2 py-1.5">Commit</th>
              <th className="px-2 py-1.5">Branch</th>
              <th className="px-2 py-1.5">Status</th>
              <th className="px-2 py-1.5 text-right">{view.metric} ms [95% CI]</th>
              <th className="px-2 py-1.5 text-right">req/s [95% CI]</th>
              <th className="px-2 py-1.5 text-right">failures % [95% CI]</th>
              <th className="px-2 py-1.5 text-right">cost / 1k [95% CI]</th>
            </tr>
          </thead>
          <tbody>
            {view.points.map((p, i) => (
              <tr
                key={p.id}
                data-testid="trend-point"
                data-run-id={p.id}
                data-valid={String(p.valid)}
                className={`border-b border-zinc-100 ${p.valid ? "" : "text-zinc-500"}`}
              >
                <td className="px-2 py-1">
                  <input
                    type="checkbox"
                    aria-label={`pick ${runLabel(p, i)}`}
                    data-testid="trend-pick"
                    checked={picked.includes(p.id)}
                    onChange={() => pick(p.id)}
                  />
                </td>
                <td className="px-2 py-1">
                  <Link href={`/runs/${p.id}`} className="text-blue-600 hover:underline">
                    {p.name ?? p.id.slice(0, 8)}
                  </Link>
                </td>
                <td className="whitespace-nowrap px-2 py-1 font-mono">{fmtTime(p.time)}</td>
                <td className="px-2 py-1 font-mono">{shortCommit(p.commit) ?? NO_VALUE}</td>
                <td className="px-2 py-1">{p.branch ?? NO_VALUE}</td>
                <td className="px-2 py-1">
                  {p.status}
                  {!p.valid && p.flags.length > 0 && (
                    <span className="ml-1 text-amber-700" title={p.flags.map((f) => f.message).join("\n")}>
                      ({p.flags.map((f) => f.code).join(", ")})
                    </span>
                  )}
                </td>
                <td className="whitespace-nowrap px-2 py-1 text-right font-mono tabular-nums">{cellValue(p.latency, 2)}</td>
                <td className="whitespace-nowrap px-2 py-1 text-right font-mono tabular-nums">{cellValue(p.throughput, 1)}</td>
                <td className="whitespace-nowrap px-2 py-1 text-right font-mono tabular-nums">{cellValue(p.failureShare, 2)}</td>
                <td className="whitespace-nowrap px-2 py-1 text-right font-mono tabular-nums">{cellValue(p.costPerThousand, 4)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollX>
    </div>
  );
}
