// Retention of raw per-second series: a workspace may keep them for N days after a run
// ends (workspaces.series_retention_days; null keeps them forever). The worker's sweep
// then deletes the run's result, load, metric and infra rows and stamps series_pruned_at;
// the run keeps its summary, steps, events and flags, and its page says the series was pruned.
import type { Db } from "../client";

const DAY_MS = 86_400_000;

/** A workspace's retention setting. */
export function retentionScope(db: Db, workspaceId: string) {
  return {
    get: async () => {
      const ws = await db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { seriesRetentionDays: true } });
      return { seriesRetentionDays: ws.seriesRetentionDays };
    },
    set: async (seriesRetentionDays: number | null) => {
      await db.workspace.update({ where: { id: workspaceId }, data: { seriesRetentionDays } });
      return { seriesRetentionDays };
    },
  };
}

/** Prunes the series of every finished run older than its workspace's retention; returns the runs pruned. */
export async function pruneExpiredSeries(db: Db, now = new Date()): Promise<string[]> {
  const workspaces = await db.workspace.findMany({
    where: { seriesRetentionDays: { not: null } },
    select: { id: true, seriesRetentionDays: true },
  });
  const pruned: string[] = [];
  for (const ws of workspaces) {
    const before = new Date(now.getTime() - ws.seriesRetentionDays! * DAY_MS);
    const runs = await db.run.findMany({
      where: { workspaceId: ws.id, seriesPrunedAt: null, finishedAt: { lt: before }, status: { in: ["SUCCEEDED", "FAILED", "ABORTED"] } },
      select: { id: true },
      take: 500,
    });
    for (const { id: runId } of runs) {
      await db.$transaction([
        db.resultSecond.deleteMany({ where: { runId } }),
        db.loadSecond.deleteMany({ where: { runId } }),
        db.metricSecond.deleteMany({ where: { runId } }),
        db.infraPoint.deleteMany({ where: { runId } }),
        db.run.update({ where: { id: runId }, data: { seriesPrunedAt: now } }),
      ]);
      pruned.push(runId);
    }
  }
  return pruned;
}
