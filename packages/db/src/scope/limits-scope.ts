import {
  DEFAULT_WORKSPACE_LIMITS,
  effectiveLimits,
  type InstanceCeilings,
  isFinalRunStatus,
  RUN_STATUSES,
  type WorkspaceLimits,
} from "@opsbench/core";
import type { Db } from "../client";
import { loadInstanceCeilings } from "../workspaces/instance-ceilings";

const ACTIVE_RUN = RUN_STATUSES.filter((s) => !isFinalRunStatus(s));
const ACTIVE_STUDY = ["QUEUED", "RUNNING"] as const;
const DAY_MS = 86_400_000;

/**
 * A workspace's limits: the stored row (or the defaults of a new install until an owner sets one), each bounded by
 * the instance's ceiling. `get` is what binds the workspace everywhere (API admission, the worker's checks).
 */
export function limitsScope(db: Db, workspaceId: string) {
  /** The workspace's own limits, as its owner set them (possibly above a ceiling lowered since). */
  const own = async (): Promise<WorkspaceLimits> => {
    const row = await db.workspaceLimits.findUnique({ where: { workspaceId } });
    if (!row) return { ...DEFAULT_WORKSPACE_LIMITS };
    const { workspaceId: _, updatedAt: __, ...limits } = row;
    return limits;
  };
  return {
    /** What binds the workspace now: each limit the lower of its own and the instance's ceiling. */
    get: async (): Promise<WorkspaceLimits> => {
      const [limits, ceilings] = await Promise.all([own(), loadInstanceCeilings(db)]);
      return effectiveLimits(limits, ceilings);
    },
    own,
    /** The instance admin's ceilings (an owner sets limits only up to them). */
    ceilings: (): Promise<InstanceCeilings> => loadInstanceCeilings(db),
    /** Sets some limits; the others keep their own value. The caller checks them against the ceilings. */
    set: async (changes: Partial<WorkspaceLimits>): Promise<WorkspaceLimits> => {
      const next = { ...(await own()), ...changes };
      await db.workspaceLimits.upsert({ where: { workspaceId }, create: { workspaceId, ...next }, update: next });
      return next;
    },
    /** Single runs and studies queued or under way (a study counts once, whatever its runs). */
    activeWork: async (): Promise<number> => {
      const [runs, studies] = await Promise.all([
        db.run.count({ where: { workspaceId, studyId: null, status: { in: ACTIVE_RUN } } }),
        db.study.count({ where: { workspaceId, status: { in: [...ACTIVE_STUDY] } } }),
      ]);
      return runs + studies;
    },
    /**
     * Runs created in the last 24 hours, however made: study runs each, external runs and k6 imports too (each is
     * rows, a summary and, for an external run, load fed from elsewhere; uncounted, they were a way around the limit).
     */
    runsToday: (): Promise<number> => db.run.count({ where: { workspaceId, createdAt: { gte: new Date(Date.now() - DAY_MS) } } }),
  };
}
export type LimitsScope = ReturnType<typeof limitsScope>;
