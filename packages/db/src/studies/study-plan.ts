// The study planner's data (core statistics/study-planner.ts): the run-to-run CV of the primary metric over earlier
// succeeded runs of the same target x workload, so the power a planned study has is read from what these targets did.
// Callers pass the workspace; names that match nothing simply contribute no runs.
import { metricOf, readStoredJson, runSummarySchema, runToRunCvOf, type RunSummary } from "@opsbench/core";
import type { Db } from "../client";

/** The most recent runs a target x workload contributes (older ones may predate changes to the target). */
export const EARLIER_RUNS_PER_CELL = 20;

export interface EarlierRunCv {
  /** The CV over the cells that had 2+ earlier runs: the root mean square of their CVs; null when none had. */
  cv: number | null;
  /** Cells (target x workload) that contributed, and their runs. */
  cells: Array<{ target: string; workload: string; runs: number; cv: number }>;
}

/** The run-to-run CV of `metric` over the latest succeeded runs of each named target x workload in the workspace. */
export async function earlierRunCv(
  db: Db,
  workspaceId: string,
  input: { targets: readonly string[]; workloads: readonly string[]; metric: string },
): Promise<EarlierRunCv> {
  const metric = metricOf(input.metric);
  if (!metric) throw new RangeError(`unknown metric "${input.metric}"`);
  const runs = await db.run.findMany({
    where: {
      workspaceId,
      status: "SUCCEEDED",
      target: { name: { in: [...input.targets] } },
      workload: { name: { in: [...input.workloads] } },
    },
    orderBy: { createdAt: "desc" },
    select: { summary: true, target: { select: { name: true } }, workload: { select: { name: true } } },
  });
  const byCell = new Map<string, { target: string; workload: string; summaries: RunSummary[] }>();
  for (const r of runs) {
    const summary = readStoredJson(runSummarySchema, r.summary);
    if (!summary || !r.target || !r.workload) continue;
    const key = `${r.target.name}\u0000${r.workload.name}`;
    const cell = byCell.get(key) ?? { target: r.target.name, workload: r.workload.name, summaries: [] };
    byCell.set(key, cell);
    if (cell.summaries.length < EARLIER_RUNS_PER_CELL) cell.summaries.push(summary);
  }
  const cells = [...byCell.values()].flatMap((c) => {
    const cv = runToRunCvOf(c.summaries.map(metric.ofRun));
    return cv === null ? [] : [{ target: c.target, workload: c.workload, runs: c.summaries.length, cv }];
  });
  const cv = cells.length ? Math.sqrt(cells.reduce((a, c) => a + c.cv ** 2, 0) / cells.length) : null;
  return { cv, cells };
}
