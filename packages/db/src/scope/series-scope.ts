// A workspace's series (series/series.ts): the list, a page at a time, and one series' points.
import type { SeriesKey } from "@opsbench/core";
import type { Db } from "../client";
import { listSeries, loadSeriesPoints, type SeriesPointsOptions } from "../series/series";
import type { PageArgs } from "./page-where";

export function seriesScope(db: Db, workspaceId: string) {
  return {
    /** The series, newest last run first, a page after `cursor`. */
    page: (args: PageArgs = {}) => listSeries(db, workspaceId, args),
    /** One series' finished runs as points with their intervals (NotFoundError when it has no run). */
    points: (key: SeriesKey, opts: SeriesPointsOptions = {}) => loadSeriesPoints(db, workspaceId, key, opts),
  };
}
