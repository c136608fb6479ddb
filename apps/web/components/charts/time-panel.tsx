"use client";

// The pieces of a stacked time panel (the compare and run pages): rows that share one x axis (seconds after the
// load start, the same range and ticks in every row), the same plot width (every row keeps room for a right-hand
// axis, used or not) and Recharts' syncId, so the tooltip's crosshair moves across all rows at once; a hatched
// last bucket when it holds less than a whole bucket; legends whose entries hide and show a series.
import Link from "next/link";
import { ReferenceArea, XAxis, YAxis } from "recharts";
import { useZoomReset } from "./zoom-drag";
import { AXIS, GRID } from "./palette";

/** Width of every row's y axes (px): equal in all rows, so their plots line up. */
export const PANEL_Y_WIDTH = 52;
/** Each row's margin: the right-hand axis' room is margin when a row has no right-hand axis. */
export const panelMargin = (rightAxis: boolean) => ({ top: 6, right: rightAxis ? 8 : 8 + PANEL_Y_WIDTH, bottom: 0, left: 0 });

/** Ticks at a round step, about 8 of them, inside [from, to]. */
export function timeTicks(from: number, to: number): number[] {
  const span = Math.max(1, to - from);
  const step = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400].find((s) => span / s <= 8) ?? 21600;
  const first = Math.ceil(from / step) * step;
  return Array.from({ length: Math.floor((to - first) / step) + 1 }, (_, i) => first + i * step);
}

const fmtSeconds = (v: number) =>
  v >= 3600 && v % 60 === 0 ? `${Math.floor(v / 3600)}h${String((v % 3600) / 60).padStart(2, "0")}` : `${v}s`;

/** The shared x axis of a panel's rows (an element: Recharts finds its axes among a chart's direct children). */
export const panelXAxis = (range: { fromSeconds: number; toSeconds: number }, showTicks = true) => (
  <XAxis
    dataKey="offsetSeconds"
    type="number"
    domain={[range.fromSeconds, range.toSeconds]}
    allowDataOverflow
    ticks={timeTicks(range.fromSeconds, range.toSeconds)}
    tick={showTicks ? AXIS : false}
    height={showTicks ? 20 : 4}
    tickLine={false}
    axisLine={{ stroke: GRID }}
    tickFormatter={fmtSeconds}
  />
);

/** A y tick in 3 significant digits, thousands as "k" from 10,000. */
export const compact = (v: number) => (v >= 10_000 ? `${Math.round(v / 1000)}k` : String(Number(v.toPrecision(3))));

/** The latency row's y axis, on a log scale when asked (a spike and the steady state both readable). */
export const latencyYAxis = (logScale: boolean) => (
  <YAxis
    tick={AXIS}
    tickLine={false}
    axisLine={false}
    width={PANEL_Y_WIDTH}
    tickFormatter={compact}
    {...(logScale ? { scale: "log" as const, domain: ["auto", "auto"], allowDataOverflow: true } : {})}
  />
);

/** An unused right-hand axis' place (rows without one keep the width through panelMargin instead). */
export const rightAxis = (props: { tickFormatter?: (v: number) => string; allowDecimals?: boolean }) => (
  <YAxis yAxisId="right" orientation="right" tick={AXIS} tickLine={false} axisLine={false} width={PANEL_Y_WIDTH} {...props} />
);

/** The hatch a partial bucket is drawn with (one <defs> per chart: ids are per document, so each row has its own). */
export function hatchDefs(id: string) {
  return (
    <defs>
      <pattern id={id} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
        <line x1="0" y1="0" x2="0" y2="6" stroke="#a1a1aa" strokeWidth="1.5" />
      </pattern>
    </defs>
  );
}

/**
 * The last bucket when the runs end inside it (it holds fewer seconds than the others, so its counts are low):
 * where it starts and how many seconds it holds. Null when every bucket is whole.
 */
export function partialBucket(
  range: { fromSeconds: number; toSeconds: number },
  bucketSeconds: number,
  loadSeconds: number | null,
): { fromSeconds: number; seconds: number } | null {
  const end = Math.min(range.toSeconds, loadSeconds ?? range.toSeconds);
  const last = Math.floor((end - 1e-9) / bucketSeconds) * bucketSeconds;
  const seconds = Math.round((end - last) * 10) / 10;
  if (bucketSeconds <= 1 || seconds >= bucketSeconds || last < range.fromSeconds) return null;
  return { fromSeconds: last, seconds };
}

/** A partial bucket's hatched band (inside a chart, after its series). */
export const partialBand = (p: { fromSeconds: number } | null, bucketSeconds: number, patternId: string, yAxisId?: string) =>
  p ? (
    <ReferenceArea
      x1={p.fromSeconds}
      x2={p.fromSeconds + bucketSeconds}
      {...(yAxisId ? { yAxisId } : {})}
      fill={`url(#${patternId})`}
      fillOpacity={0.5}
      stroke="none"
      ifOverflow="hidden"
      className="partial-bucket"
    />
  ) : null;

export interface ToggleItem {
  key: string;
  label: string;
  color: string;
  dash?: string;
  hidden: boolean;
}

/** A legend whose entries are buttons: a click hides or shows that series (aria-pressed = shown). */
export function ToggleLegend({ items, onToggle, testId }: { items: ToggleItem[]; onToggle: (key: string) => void; testId?: string }) {
  return (
    <ul data-testid={testId} className="flex flex-wrap gap-x-2 gap-y-1 text-2xs text-zinc-700">
      {items.map((it) => (
        <li key={it.key}>
          <button
            type="button"
            aria-pressed={!it.hidden}
            title={it.hidden ? `Show ${it.label}` : `Hide ${it.label}`}
            onClick={() => onToggle(it.key)}
            className={`inline-flex items-center gap-1 rounded border px-1.5 py-0.5 ${
              it.hidden ? "border-zinc-200 text-zinc-400 line-through" : "border-zinc-300 bg-white hover:border-zinc-400"
            }`}
          >
            <svg width="18" height="6" aria-hidden>
              <line x1="0" y1="3" x2="18" y2="3" stroke={it.color} strokeWidth="2" strokeDasharray={it.dash || undefined} />
            </svg>
            {it.label}
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The page-wide zoom's badge: every number on the page is the window's; Reset goes back to the whole run. */
export function ZoomBadge({ window, testId = "zoom-badge" }: { window: { fromSeconds: number; toSeconds: number }; testId?: string }) {
  const reset = useZoomReset();
  return (
    <p
      data-testid={testId}
      data-from={window.fromSeconds}
      data-to={window.toSeconds}
      className="inline-flex items-center gap-2 rounded border border-blue-300 bg-blue-50 px-2 py-1 text-xs text-blue-900"
    >
      <span>
        window {window.fromSeconds}–{window.toSeconds} s: every chart, card and verdict on this page is this window's
      </span>
      <span aria-hidden>·</span>
      <Link href={reset} scroll={false} data-testid="zoom-reset" className="font-medium text-blue-700 hover:underline">
        Reset
      </Link>
    </p>
  );
}

/** A latency row's controls: which quantile it draws (radio buttons) and whether its y axis is logarithmic. */
export function LatencyControls<Q extends string>({
  quantiles,
  quantile,
  onQuantile,
  logScale,
  onLogScale,
  testIdPrefix,
}: {
  quantiles: readonly Q[];
  quantile: Q;
  onQuantile: (q: Q) => void;
  logScale: boolean;
  onLogScale: (on: boolean) => void;
  testIdPrefix: string;
}) {
  return (
    <span className="inline-flex flex-wrap items-center gap-2 text-2xs text-zinc-700">
      <fieldset className="inline-flex overflow-hidden rounded border border-zinc-300">
        <legend className="sr-only">Latency quantile</legend>
        {quantiles.map((q) => (
          <label
            key={q}
            className={`cursor-pointer px-1.5 py-0.5 has-[:focus-visible]:outline has-[:focus-visible]:outline-2 ${
              quantile === q ? "bg-zinc-800 text-white" : "bg-white hover:bg-zinc-100"
            }`}
          >
            <input
              type="radio"
              name={`${testIdPrefix}-quantile`}
              value={q}
              data-testid={`${testIdPrefix}-quantile-${q}`}
              checked={quantile === q}
              onChange={() => onQuantile(q)}
              className="sr-only"
            />
            {q}
          </label>
        ))}
      </fieldset>
      <label className="inline-flex items-center gap-1">
        <input
          type="checkbox"
          data-testid={`${testIdPrefix}-latency-log`}
          checked={logScale}
          onChange={(e) => onLogScale(e.target.checked)}
        />
        log scale
      </label>
    </span>
  );
}
