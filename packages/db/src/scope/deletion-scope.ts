// Deleting what a workspace made: runs (with their series, steps, events), studies (with
// their runs), targets and workloads, and the share links that show any of them. A run or
// study must be final first (the callers in packages/jobs abort it and wait); a target or a
// workload that runs still use is refused, never deleted with them (docs/faults.md).
import { isFinalRunStatus, readStoredJson, shareSubjectSchema, subjectRunIds } from "@opsbench/core";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { isUuid, type WorkspaceAccess } from "./workspace-access";

type Tx = Prisma.TransactionClient;

/** Deletes the workspace's share links that name any of these runs or this study. */
async function deleteShareLinksOf(tx: Tx, workspaceId: string, runIds: string[], studyId?: string) {
  const links = await tx.shareLink.findMany({ where: { workspaceId }, select: { id: true, subject: true } });
  const doomed = links.filter((l) => {
    const subject = readStoredJson(shareSubjectSchema, l.subject);
    if (!subject) return false;
    return (studyId !== undefined && subject.studyId === studyId) || subjectRunIds(subject).some((id) => runIds.includes(id));
  });
  if (doomed.length) await tx.shareLink.deleteMany({ where: { id: { in: doomed.map((l) => l.id) } } });
  return doomed.length;
}

const byIdOrName = (workspaceId: string, key: string) => (isUuid(key) ? { workspaceId, id: key } : { workspaceId, name: key });

export function deletionScope(db: Db, workspaceId: string, access: WorkspaceAccess) {
  return {
    /** Deletes a final run with everything it has (steps, series, events: by cascade) and the share links that show it. */
    deleteRun: async (id: string) => {
      await access.assertRun(id);
      return db.$transaction(async (tx) => {
        const run = await tx.run.findUniqueOrThrow({ where: { id }, select: { status: true } });
        if (!isFinalRunStatus(run.status)) throw new ConflictError(`run ${id} is ${run.status}: it must be stopped before it is deleted`);
        const shareLinks = await deleteShareLinksOf(tx, workspaceId, [id]);
        await tx.run.delete({ where: { id } });
        return { shareLinks };
      });
    },
    /** Deletes a final study, its runs (with theirs) and the share links that show the study or any of its runs. */
    deleteStudy: async (id: string) => {
      await access.assertStudy(id);
      return db.$transaction(async (tx) => {
        const study = await tx.study.findUniqueOrThrow({
          where: { id },
          select: { status: true, runs: { select: { id: true, status: true } } },
        });
        const busy = study.runs.filter((r) => !isFinalRunStatus(r.status));
        if (!isFinalRunStatus(study.status) || busy.length)
          throw new ConflictError(
            `study ${id} is ${study.status}${busy.length ? ` with a run under way` : ""}: it must be stopped before it is deleted`,
          );
        const shareLinks = await deleteShareLinksOf(
          tx,
          workspaceId,
          study.runs.map((r) => r.id),
          id,
        );
        await tx.study.delete({ where: { id } });
        return { shareLinks, runs: study.runs.length };
      });
    },
    /** Deletes a target (by id or name) no run uses; one that runs use is refused with how many. */
    deleteTarget: async (key: string) => {
      const target = await db.target.findFirst({ where: byIdOrName(workspaceId, key), select: { id: true, name: true } });
      if (!target) throw new NotFoundError("target", key);
      const runs = await db.run.count({ where: { targetId: target.id } });
      if (runs) throw new ConflictError(`target "${target.name}" is used by ${runs} run(s): delete those runs (or their studies) first`);
      await db.target.delete({ where: { id: target.id } });
      return { id: target.id, name: target.name };
    },
    /** Deletes a workload (by id or name) no run uses; one that runs use is refused with how many. */
    deleteWorkload: async (key: string) => {
      const workload = await db.workload.findFirst({ where: byIdOrName(workspaceId, key), select: { id: true, name: true } });
      if (!workload) throw new NotFoundError("workload", key);
      const runs = await db.run.count({ where: { workloadId: workload.id } });
      if (runs)
        throw new ConflictError(`workload "${workload.name}" is used by ${runs} run(s): delete those runs (or their studies) first`);
      await db.workload.delete({ where: { id: workload.id } });
      return { id: workload.id, name: workload.name };
    },
    /** The status of a run and whether it is final (the callers wait on this after an abort). */
    runStatus: async (id: string) => {
      await access.assertRun(id);
      const { status } = await db.run.findUniqueOrThrow({ where: { id }, select: { status: true } });
      return { status, final: isFinalRunStatus(status) };
    },
    /** Whether a study and every run of it are final. */
    studyStatus: async (id: string) => {
      await access.assertStudy(id);
      const s = await db.study.findUniqueOrThrow({ where: { id }, select: { status: true, runs: { select: { status: true } } } });
      return { status: s.status, final: isFinalRunStatus(s.status) && s.runs.every((r) => isFinalRunStatus(r.status)) };
    },
  };
}
