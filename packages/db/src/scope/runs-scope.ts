import type { Db } from "../client";
import { NotFoundError } from "../errors";
import { parseRunJson } from "../run-json";
import { loadRunView, loadWindowSummary } from "../run-view";
import { runSpecColumns } from "../spec-columns";
import type { WorkspaceAccess } from "./workspace-access";

/** A workspace's runs. */
export function runsScope(db: Db, workspaceId: string, access: WorkspaceAccess) {
  return {
    create: async (args: { targetName: string; workloadName: string }) => {
      const target = await db.target.findUnique({ where: { workspaceId_name: { workspaceId, name: args.targetName } } });
      if (!target) throw new NotFoundError("target", args.targetName);
      const workload = await db.workload.findUnique({ where: { workspaceId_name: { workspaceId, name: args.workloadName } } });
      if (!workload) throw new NotFoundError("workload", args.workloadName);
      return parseRunJson(
        await db.run.create({ data: { workspaceId, targetId: target.id, workloadId: workload.id, ...runSpecColumns(target, workload) } }),
      );
    },
    list: async (take = 50) =>
      (
        await db.run.findMany({
          where: { workspaceId },
          orderBy: { createdAt: "desc" },
          take,
          include: { target: { select: { name: true, kind: true } }, workload: { select: { name: true } } },
        })
      ).map(parseRunJson),
    assertExists: access.assertRun,
    view: async (id: string) => {
      await access.assertRun(id);
      return loadRunView(db, id);
    },
    /** Summary of seconds [from, to) after the load started. */
    windowSummary: async (id: string, fromSeconds: number, toSeconds: number) => {
      await access.assertRun(id);
      return loadWindowSummary(db, id, fromSeconds, toSeconds);
    },
    /** Marks a run that never reached a worker as failed (e.g. the queue was down). */
    failBeforeStart: (id: string, error: string) =>
      db.run.updateMany({ where: { id, workspaceId, status: "QUEUED" }, data: { status: "FAILED", error, finishedAt: new Date() } }),
  };
}
