// What the worker's reconciler reads and writes: runs and studies left in a
// non-final state (their worker died, their job vanished), the steps they left
// RUNNING, and whether they wrote any results. Every write here is conditional on
// the row still being unfinished, so a reconciler never overwrites a real outcome.
import type { Db } from "../client";
import type { RunStatus, StudyStatus } from "../generated/prisma/enums";

const UNFINISHED_RUN: RunStatus[] = ["QUEUED", "PROVISIONING", "RUNNING", "ANALYZING"];
const UNFINISHED_STUDY: StudyStatus[] = ["QUEUED", "RUNNING"];

/** Runs not in a final state (opsbench runs only: imports are final when written), oldest first. */
export const unfinishedRuns = (db: Db) =>
  db.run.findMany({
    where: { status: { in: UNFINISHED_RUN }, source: "opsbench" },
    select: { id: true, status: true, studyId: true, createdAt: true },
    orderBy: { createdAt: "asc" },
  });

/** Studies not in a final state, with how many runs they have. */
export const unfinishedStudies = async (db: Db) =>
  (
    await db.study.findMany({
      where: { status: { in: UNFINISHED_STUDY } },
      select: { id: true, status: true, _count: { select: { runs: true } } },
      orderBy: { createdAt: "asc" },
    })
  ).map((s) => ({ id: s.id, status: s.status, runs: s._count.runs }));

/** Steps a dead worker left RUNNING end FAILED with the reason (a final run shows no step still running). */
export const closeOpenSteps = (db: Db, runId: string, error: string) =>
  db.runStep.updateMany({ where: { runId, status: "RUNNING" }, data: { status: "FAILED", error, finishedAt: new Date() } });

/** How many seconds of per-request results the run has written (distinct seconds of result_seconds). */
export async function resultSecondsWritten(db: Db, runId: string): Promise<number> {
  const seconds = await db.resultSecond.groupBy({ by: ["ts"], where: { runId } });
  return seconds.length;
}

/** Ends a run that is still unfinished; false when it reached a final state meanwhile (that outcome stands). */
export async function endUnfinishedRun(db: Db, runId: string, status: "FAILED" | "ABORTED", error: string): Promise<boolean> {
  const r = await db.run.updateMany({
    where: { id: runId, status: { in: UNFINISHED_RUN } },
    data: { status, error, finishedAt: new Date() },
  });
  return r.count === 1;
}

/** Ends a study that is still unfinished (and its runs not started), e.g. one with no runs at all. */
export const endUnfinishedStudy = (db: Db, studyId: string, error: string) =>
  db.$transaction([
    db.run.updateMany({ where: { studyId, status: "QUEUED" }, data: { status: "FAILED", error, finishedAt: new Date() } }),
    db.study.updateMany({
      where: { id: studyId, status: { in: UNFINISHED_STUDY } },
      data: { status: "FAILED", error, finishedAt: new Date() },
    }),
  ]);

/**
 * The run whose LOAD step recorded the load network `name` (k6's namespace and nftables
 * table share it), with its status; null when no run of this database recorded it
 * (it may belong to another installation on the same machine: leave it alone).
 */
export async function runOfLoadNetwork(db: Db, name: string): Promise<{ id: string; status: RunStatus } | null> {
  const step = await db.runStep.findFirst({
    where: { name: "LOAD", detail: { path: ["k6", "network", "ns"], equals: name } },
    select: { run: { select: { id: true, status: true } } },
  });
  return step?.run ?? null;
}
