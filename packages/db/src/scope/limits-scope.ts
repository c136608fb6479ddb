import { DEFAULT_WORKSPACE_LIMITS, isFinalRunStatus, RUN_STATUSES, type WorkspaceLimits } from "@opsbench/core";
import type { Db } from "../client";

const ACTIVE_RUN = RUN_STATUSES.filter((s) => !isFinalRunStatus(s));
const ACTIVE_STUDY = ["QUEUED", "RUNNING"] as const;

/** A workspace's limits: the stored row, or the defaults of a new install until an owner sets one. */
export function limitsScope(db: Db, workspaceId: string) {
  const get = async (): Promise<WorkspaceLimits> => {
    const row = await db.workspaceLimits.findUnique({ where: { workspaceId } });
    if (!row) return { ...DEFAULT_WORKSPACE_LIMITS };
    const { workspaceId: _, updatedAt: __, ...limits } = row;
    return limits;
  };
  return {
    get,
    /** Sets some limits; the others keep their current value. */
    set: async (changes: Partial<WorkspaceLimits>): Promise<WorkspaceLimits> => {
      const next = { ...(await get()), ...changes };
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
  };
}
export type LimitsScope = ReturnType<typeof limitsScope>;
