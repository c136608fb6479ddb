// A workspace's series (core runs/series-key.ts, docs/trends.md) and the points of one: each finished run with its
// provenance, validity and, per metric, its value and 95% interval from its stored rollup (core compare/run-point.ts).
// Callers scope by workspace (scope/series-scope.ts); this file takes the workspace id it is given.
import {
  allSeriesChanges,
  FINAL_RUN_STATUSES,
  flagsOfRun,
  type PageKey,
  pageOf,
  type RunPointMetrics,
  runPointMetrics,
  type SeriesChange,
  type SeriesKey,
  seriesKeyOfRun,
  seriesKeyText,
  seriesTitle,
  trendLatencyMetric,
  type ValidityFlag,
  verdictExcludingFlags,
  windowsOfRollup,
} from "@opsbench/core";
import type { Prisma } from "../generated/prisma/client";
import type { Db } from "../client";
import { NotFoundError } from "../errors";
import { parseRunJson } from "../runs/run-json";
import { loadRunRollups, storeRunRollup } from "../runs/run-rollups";
import { limitOf, NEWEST_FIRST, type PageArgs } from "../scope/page-where";

export interface SeriesItem {
  key: string;
  /** The name it was given, or "<target> × <workload>". */
  title: string;
  kind: SeriesKey["kind"];
  /** A target x workload series' target and workload; null for a named series (its runs may have any or none). */
  target: { name: string; kind: string } | null;
  workload: { name: string } | null;
  /** All its runs, whatever their status. */
  runs: number;
  /** Its newest run. */
  lastRun: { id: string; createdAt: string; status: string };
}

/** A series' runs: by name, or its target and workload's runs that have no name. */
async function seriesWhere(db: Db, workspaceId: string, key: SeriesKey): Promise<Prisma.RunWhereInput | null> {
  if (key.kind === "named") return { workspaceId, series: key.name };
  const [target, workload] = await Promise.all([
    db.target.findUnique({ where: { workspaceId_name: { workspaceId, name: key.target } }, select: { id: true } }),
    db.workload.findUnique({ where: { workspaceId_name: { workspaceId, name: key.workload } }, select: { id: true } }),
  ]);
  if (!target || !workload) return null;
  return { workspaceId, series: null, targetId: target.id, workloadId: workload.id };
}

/**
 * The workspace's series, newest last run first (then by key), a page after `cursor`. Series are groups of runs, not
 * rows: each page groups the runs again (two GROUP BYs on indexed columns) and orders the groups; a workspace has
 * far fewer series than runs.
 */
export async function listSeries(db: Db, workspaceId: string, args: PageArgs = {}) {
  const [named, pairs] = await Promise.all([
    db.run.groupBy({
      by: ["series"],
      where: { workspaceId, series: { not: null } },
      _count: { _all: true },
      _max: { createdAt: true },
    }),
    db.run.groupBy({
      by: ["targetId", "workloadId"],
      where: { workspaceId, series: null, targetId: { not: null }, workloadId: { not: null } },
      _count: { _all: true },
      _max: { createdAt: true },
    }),
  ]);
  const [targets, workloads] = await Promise.all([
    db.target.findMany({ where: { id: { in: pairs.map((p) => p.targetId!) } }, select: { id: true, name: true, kind: true } }),
    db.workload.findMany({ where: { id: { in: pairs.map((p) => p.workloadId!) } }, select: { id: true, name: true } }),
  ]);
  const targetOf = new Map(targets.map((t) => [t.id, t]));
  const workloadOf = new Map(workloads.map((w) => [w.id, w]));
  type Group = {
    key: SeriesKey;
    runs: number;
    lastAt: Date;
    where: Prisma.RunWhereInput;
    target: SeriesItem["target"];
    workload: SeriesItem["workload"];
  };
  const groups: Group[] = [
    ...named.map((g) => ({
      key: { kind: "named" as const, name: g.series! },
      runs: g._count._all,
      lastAt: g._max.createdAt!,
      where: { workspaceId, series: g.series },
      target: null,
      workload: null,
    })),
    ...pairs.flatMap((g) => {
      const t = targetOf.get(g.targetId!);
      const w = workloadOf.get(g.workloadId!);
      if (!t || !w) return [];
      return [
        {
          key: { kind: "target-workload" as const, target: t.name, workload: w.name },
          runs: g._count._all,
          lastAt: g._max.createdAt!,
          where: { workspaceId, series: null, targetId: t.id, workloadId: w.id },
          target: { name: t.name, kind: t.kind },
          workload: { name: w.name },
        },
      ];
    }),
  ];
  const sortKey = (g: Group): PageKey => ({ at: g.lastAt.toISOString(), key: seriesKeyText(g.key) });
  const after = (g: Group, c: PageKey) => {
    const k = sortKey(g);
    return k.at! < c.at! || (k.at === c.at && k.key < c.key);
  };
  const ordered = groups
    .sort((a, b) => b.lastAt.getTime() - a.lastAt.getTime() || (seriesKeyText(b.key) < seriesKeyText(a.key) ? -1 : 1))
    .filter((g) => !args.cursor || after(g, args.cursor));
  const limit = limitOf(args);
  const page = pageOf(ordered.slice(0, limit + 1), limit, sortKey);
  const items: SeriesItem[] = [];
  for (const g of page.items) {
    const last = await db.run.findFirstOrThrow({
      where: g.where,
      orderBy: NEWEST_FIRST,
      select: { id: true, createdAt: true, status: true },
    });
    items.push({
      key: seriesKeyText(g.key),
      title: seriesTitle(g.key),
      kind: g.key.kind,
      target: g.target,
      workload: g.workload,
      runs: g.runs,
      lastRun: { id: last.id, createdAt: last.createdAt.toISOString(), status: last.status },
    });
  }
  return { items, nextCursor: page.nextCursor };
}

export interface SeriesPoint extends RunPointMetrics {
  id: string;
  name: string | null;
  /** When its load started (an imported run: its file's first sample), else when it was created. */
  time: string;
  createdAt: string;
  status: string;
  commit: string | null;
  branch: string | null;
  pullRequest: number | null;
  /** Its validity flags, stored and implied by its summary (as the run page shows them). */
  flags: ValidityFlag[];
  /** False when it did not succeed or a flag leaves it out of verdicts: the trend draws it apart and detects no change with it. */
  valid: boolean;
}

export interface SeriesPoints {
  series: Omit<SeriesItem, "runs" | "lastRun">;
  /** The latency metric drawn (p95 unless asked). */
  metric: string;
  /** Oldest first (by time). */
  points: SeriesPoint[];
  /** True when the series has more finished runs than `limit`: the points are its newest. */
  truncated: boolean;
  /** Where a metric's level changed (core compare/series-changes.ts), oldest first. */
  changes: SeriesChange[];
}

export const DEFAULT_POINTS = 200;
export const MAX_POINTS = 1000;

export interface SeriesPointsOptions {
  metric?: string | undefined;
  limit?: number | undefined;
  /** Only runs recorded on this branch (a CI gate's history on its baseline branch). */
  branch?: string | undefined;
  /** Only runs that ended so (default: every final status). */
  status?: "SUCCEEDED" | "FAILED" | "ABORTED" | undefined;
}

/**
 * A series' finished runs as points (see the file's head), its newest `limit` (default 200), oldest first; `branch`
 * and `status` narrow them. A series with runs but none that match answers no points (404 only for no run at all).
 */
export async function loadSeriesPoints(db: Db, workspaceId: string, key: SeriesKey, opts: SeriesPointsOptions = {}): Promise<SeriesPoints> {
  const metric = trendLatencyMetric(opts.metric).key;
  const where = await seriesWhere(db, workspaceId, key);
  const first = where ? await db.run.findFirst({ where, select: { id: true, target: { select: { name: true, kind: true } } } }) : null;
  if (!where || !first) throw new NotFoundError("series", seriesKeyText(key));
  const limit = Math.min(opts.limit ?? DEFAULT_POINTS, MAX_POINTS);
  const rows = await db.run.findMany({
    where: {
      ...where,
      status: opts.status ?? { in: [...FINAL_RUN_STATUSES] as Array<"SUCCEEDED" | "FAILED" | "ABORTED"> },
      ...(opts.branch === undefined ? {} : { branch: opts.branch }),
    },
    orderBy: NEWEST_FIRST,
    take: limit + 1,
  });
  const runs = rows.slice(0, limit).map(parseRunJson);
  const ids = runs.map((r) => r.id);
  let rollups = await loadRunRollups(db, ids, [0]);
  // A finished run analysed before rollups were stored gets its rollup now, once (as a comparison does).
  const missing = runs.filter((r) => r.summary && !rollups.has(r.id));
  if (missing.length) {
    for (const r of missing) await storeRunRollup(db, r.id);
    rollups = await loadRunRollups(db, ids, [0]);
  }
  const points = runs.map((r): SeriesPoint => {
    const rollup = rollups.get(r.id);
    const flags = flagsOfRun(r);
    return {
      id: r.id,
      name: r.name,
      time: (r.loadStartedAt ?? r.startedAt ?? r.createdAt).toISOString(),
      createdAt: r.createdAt.toISOString(),
      status: r.status,
      commit: r.commit,
      branch: r.branch,
      pullRequest: r.pullRequest,
      flags,
      valid: r.status === "SUCCEEDED" && r.summary !== null && verdictExcludingFlags(flags).length === 0,
      ...runPointMetrics(
        {
          summary: r.summary,
          windows: rollup ? windowsOfRollup(rollup.windows) : [],
          whole: rollup?.cells.get(0) ?? [],
          above: rollup?.windows.above ?? null,
        },
        metric,
      ),
    };
  });
  points.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.createdAt < b.createdAt ? -1 : 1));
  const target = key.kind === "target-workload" ? first.target : null;
  return {
    series: {
      key: seriesKeyText(key),
      title: seriesTitle(key),
      kind: key.kind,
      target: target ? { name: target.name, kind: target.kind } : null,
      workload: key.kind === "target-workload" ? { name: key.workload } : null,
    },
    metric,
    points,
    truncated: rows.length > limit,
    changes: allSeriesChanges(points),
  };
}

/** The series a run is in, with its workspace and status (null for an unknown run or one in no series). */
export async function seriesOfRun(db: Db, runId: string): Promise<{ workspaceId: string; status: string; key: SeriesKey } | null> {
  const run = await db.run.findUnique({
    where: { id: runId },
    select: { workspaceId: true, status: true, series: true, target: { select: { name: true } }, workload: { select: { name: true } } },
  });
  const key = run ? seriesKeyOfRun(run) : null;
  return run && key ? { workspaceId: run.workspaceId, status: run.status, key } : null;
}
