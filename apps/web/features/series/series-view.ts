// What the trend page draws from GET /api/v1/series/{key}/points (the same answer, shaped for the charts): each
// metric's points, x by time or by commit, and the compare page's address for two runs or a change's two sides.
import type { SeriesPointsAnswer } from "@opsbench/api";

export type SeriesPointsView = SeriesPointsAnswer;
export type TrendPoint = SeriesPointsView["points"][number];
export type TrendChange = SeriesPointsView["changes"][number];

export type XMode = "time" | "commit";

export type MetricField = "latency" | "throughput" | "failureShare" | "costPerThousand";

export const TREND_METRICS: ReadonlyArray<{
  field: MetricField;
  title: (v: SeriesPointsView) => string;
  testId: string;
  decimals: number;
}> = [
  { field: "latency", title: (v) => `${v.metric} latency, successful responses (ms)`, testId: "trend-latency", decimals: 2 },
  { field: "throughput", title: () => "successful req/s", testId: "trend-throughput", decimals: 1 },
  { field: "failureShare", title: () => "failure share (%)", testId: "trend-failures", decimals: 2 },
  { field: "costPerThousand", title: () => "cost per 1,000 successful requests", testId: "trend-cost", decimals: 4 },
];

/** A commit as the page writes it: its first 7 digits. */
export const shortCommit = (c: string | null | undefined) => (c ? c.slice(0, 7) : null);

/** A run's label in a comparison: its short commit, else its place in the series ("run 3"). */
export const runLabel = (p: TrendPoint, index: number) => shortCommit(p.commit) ?? `run ${index + 1}`;

/** The compare page for groups of runs (its `?g=<label>:<id>,<id>` format: features/compare/selection.ts). */
export function compareHref(groups: ReadonlyArray<{ label: string; runIds: readonly string[] }>): string {
  const q = new URLSearchParams();
  for (const g of groups) q.append("g", `${g.label}:${g.runIds.join(",")}`);
  return `/compare?${q.toString()}`;
}

/** A change's "before vs after" comparison. */
export const changeCompareHref = (c: TrendChange) =>
  compareHref([
    { label: "Before", runIds: c.beforeRunIds },
    { label: "After", runIds: c.afterRunIds },
  ]);

/** Two picked runs' comparison, oldest first, each labelled by its commit (or place); the same label twice is told apart. */
export function pairCompareHref(points: readonly TrendPoint[], ids: readonly [string, string]): string {
  const picked = ids
    .map((id) => points.findIndex((p) => p.id === id))
    .filter((i) => i >= 0)
    .sort((a, b) => a - b);
  const labels = picked.map((i) => runLabel(points[i]!, i));
  if (labels[0] === labels[1]) for (const k of [0, 1]) labels[k] = `${labels[k]} (${picked[k]! + 1})`;
  return compareHref(picked.map((i, k) => ({ label: labels[k]!, runIds: [points[i]!.id] })));
}

/** A change's commit range as the page writes it: "abc1234..def5678", "…..def5678" when the start is unknown. */
export function commitRangeText(c: TrendChange): string {
  const a = shortCommit(c.commits.lastBefore) ?? "…";
  const b = shortCommit(c.commits.firstAfter) ?? "…";
  return c.commits.sameCommit ? `${b} (same commit either side)` : `${a}..${b}`;
}

export const fmtRelative = (r: number) => `${r >= 0 ? "+" : ""}${(r * 100).toFixed(1)}%`;

/** Where a point sits on x: its time (epoch ms) or its place in the series (by commit). */
export const xOf = (p: TrendPoint, index: number, mode: XMode) => (mode === "time" ? Date.parse(p.time) : index);

/** Where a change's marker sits: between the last run before it and the first after. */
export function changeX(points: readonly TrendPoint[], c: TrendChange, mode: XMode): number {
  const after = points[c.index]!;
  const beforeIndex = points.findIndex((p) => p.id === c.beforeRunIds[c.beforeRunIds.length - 1]);
  const before = points[beforeIndex] ?? points[c.index - 1] ?? after;
  return (xOf(before, beforeIndex >= 0 ? beforeIndex : c.index - 1, mode) + xOf(after, c.index, mode)) / 2;
}
