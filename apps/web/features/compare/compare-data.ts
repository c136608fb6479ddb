// What the comparison pages render and the exports read: the ComparisonView
// from packages/db, a title, and cost per group. The same shape feeds the
// in-app page, the printable report and the public share page (there stripped to
// a whitelist: features/share/public-share.ts).
import type { BreakEvenPair, GroupCost } from "@opsbench/core";
import type { ComparisonView, SeriesWindow } from "@opsbench/db";
import {
  chartCdf,
  chartSeries,
  packCdf,
  packOffsets,
  packSeries,
  unpackCdf,
  unpackOffsets,
  unpackSeries,
  type PackedCdf,
  type PackedSeries,
} from "@/components/charts/chart-series";

export type { BreakEvenPair, GroupCost };

/** A ComparisonView (what POST /api/v1/comparisons returns), with a title and costs. */
export interface CompareData extends ComparisonView {
  /** A heading for the comparison: the study's name, a share link's title, or null. */
  title: string | null;
  /**
   * Cost per group, aligned with groups; null where no cost is known.
   * Filled by core's groupCost() from the runs' priced costs.
   */
  costs: Array<GroupCost | null>;
  /** Cost vs request rate for each serverful x serverless pair of groups with cost models (where serverless stops being cheaper). */
  breakEvens: BreakEvenPair[];
  generatedAt: string;
  /**
   * What the charts over time show: the bucket length and, when zoomed, the window. Set by
   * forCharts; without it the series are the comparison's 10 s buckets.
   */
  chart?: {
    bucketSeconds: number;
    /** The zoom (?from=&to=), when the page is zoomed: then every number on it is the window's. */
    window: { fromSeconds: number; toSeconds: number } | null;
    /** The x range every chart over time draws (the zoom, else 0 to the longest run's end), one axis for all. */
    range?: { fromSeconds: number; toSeconds: number };
    /** Each group's offered load in the same buckets: VUs (closed-loop runs) or scheduled arrivals/s (open). */
    load?: PackedLoad[];
    /** Each group's longest analysis window (s): a bucket reaching past it is partial. */
    loadSeconds?: Array<number | null>;
    downsampled: boolean;
    /** Each group's series as the charts draw it, packed (the groups' own series are then empty; unpackCharts restores them). */
    series: PackedSeries[];
    /** Each group's latency CDF, packed likewise (the groups' own distributions are then empty). */
    distributions: PackedCdf[];
  };
}

/** A group's load series as sent: its offsets (as PackedSeries') and one value per bucket. */
export interface PackedLoad {
  closedLoop: boolean;
  offsetSeconds: PackedSeries["offsetSeconds"];
  values: number[];
}

/** A group's load series back in the browser: VUs or arrivals/s per bucket start. */
export const unpackLoad = (p: PackedLoad) =>
  unpackOffsets(p.offsetSeconds, p.values.length).map((offsetSeconds, i) => ({ offsetSeconds, value: p.values[i] ?? 0 }));

/**
 * The data a page sends to the browser: each group's series reduced to what a chart can
 * draw, or, when zoomed into a window, that window at its finest resolution (every second
 * of a short one). The full series stay with the exports and the API.
 */
export function forCharts(data: CompareData, window: SeriesWindow | null = null, zoomed = window !== null): CompareData {
  let downsampled = false;
  const series = data.groups.map((g, i) => {
    const full = window ? (window.series[i] ?? []) : g.series;
    const shown = chartSeries(full);
    downsampled ||= shown.length < full.length;
    return packSeries(shown);
  });
  return {
    ...data,
    groups: data.groups.map((g) => ({ ...g, series: [], distribution: [] })),
    chart: {
      bucketSeconds: window?.bucketSeconds ?? 10,
      window: window && zoomed ? { fromSeconds: window.fromSeconds, toSeconds: window.toSeconds } : null,
      ...(window
        ? {
            range: { fromSeconds: window.fromSeconds, toSeconds: window.toSeconds },
            load: window.load.map((l, i) => {
              const closedLoop = window.closedLoop[i] ?? false;
              return {
                closedLoop,
                offsetSeconds: packOffsets(l.map((b) => b.offsetSeconds)),
                values: l.map((b) => (closedLoop ? b.vus : b.arrivalsPerSecond)),
              };
            }),
            loadSeconds: window.loadSeconds,
          }
        : {}),
      downsampled,
      series,
      distributions: data.groups.map((g) => packCdf(chartCdf(g.distribution))),
    },
  };
}

/** In the browser: the groups' series and distributions back from what forCharts packed. */
export function unpackCharts(data: CompareData): CompareData {
  const chart = data.chart;
  if (!chart) return data;
  return {
    ...data,
    groups: data.groups.map((g, i) => {
      const series = chart.series[i];
      const cdf = chart.distributions[i];
      return { ...g, series: series ? unpackSeries(series) : g.series, distribution: cdf ? unpackCdf(cdf) : g.distribution };
    }),
  };
}

/** The selection a comparison shows (its groups' labels and run ids), e.g. for a URL or a share link. */
export const selectionOf = (data: Pick<ComparisonView, "groups">) => ({
  groups: data.groups.map((g) => ({ label: g.label, runIds: g.runs.map((r) => r.id) })),
});
