// The reconciler: the row is the truth, and every row reaches a final state. At
// worker start (before it takes jobs), and every minute in one worker of the
// installation (a tick of the "reconcile" job scheduler: maintenance.ts), it finds
// runs and studies in a non-final state that nothing is executing, and
// - a run in flight (PROVISIONING, RUNNING, ANALYZING): stops what its steps recorded
//   (k6's process group and network, the target's processes), ends it FAILED with the
//   reason, its results kept and flagged partial (interrupted-run.ts);
// - a single run still QUEUED whose job vanished (Redis lost it): enqueued again;
// - a study QUEUED or RUNNING whose job vanished or failed: enqueued again (it resumes
//   with the runs not yet finished); one with no runs at all ends FAILED.
// "Nothing is executing" means: not this process, and its job (the run's own, or its
// study's) is not waiting to be delivered and not held by a live lock. A lock held by a
// worker of this machine that is dead (its heartbeat names the job, its pid is gone) is
// not waited for: the lock is released so BullMQ redelivers the job at once.
import os from "node:os";
import { enqueueRun, enqueueStudy, type RunQueue, type StudyQueue, type WorkerHeartbeat } from "@opsbench/jobs";
import { endUnfinishedRun, endUnfinishedStudy, unfinishedRuns, unfinishedStudies } from "@opsbench/db";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { endInterruptedRun, INTERRUPTED } from "./pipeline/interrupted-run";
import { runContext, type PipelineDeps } from "./pipeline/run-context";
import { tellRunFailed } from "./pipeline/run-failed-notice";
import { errorMessage } from "./pipeline/run-failure";

export interface ReconcilerDeps extends PipelineDeps {
  runQueue: RunQueue;
  studyQueue: StudyQueue;
  /** What this process executes now: never touched. */
  executing: { runs: Set<string>; studies: Set<string> };
  /** Redis as BullMQ's queues use it (the job locks). */
  queueRedis: Pick<Redis, "exists" | "del">;
  /** This process's heartbeat id (its own beat is never a dead worker's). */
  workerId: string;
  /** Every worker heartbeat in Redis (@opsbench/jobs readWorkerHeartbeats). */
  readHeartbeats: () => Promise<WorkerHeartbeat[]>;
}

export interface ReconcileReport {
  failed: string[];
  requeuedRuns: string[];
  requeuedStudies: string[];
  failedStudies: string[];
  releasedLocks: string[];
}

/** Where a job is: waiting to be delivered, held by a live worker, or with nobody (gone, finished, stalled, a dead owner's). */
type JobHold = "pending" | "held" | "dead-owner" | "none";

const PENDING = new Set(["waiting", "delayed", "prioritized", "waiting-children", "paused"]);

/** Whether the process that wrote `beat` is gone: only knowable for workers of this machine. */
export function isDeadWorker(beat: WorkerHeartbeat, self: { workerId: string; host?: string }): boolean {
  if (beat.workerId === self.workerId || beat.host !== (self.host ?? os.hostname())) return false;
  try {
    process.kill(beat.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

async function jobHold(
  queue: Queue,
  redis: ReconcilerDeps["queueRedis"],
  jobId: string,
  deadOwned: Set<string>,
): Promise<{ hold: JobHold; state: string }> {
  const state = await queue.getJobState(jobId);
  if (PENDING.has(state)) return { hold: "pending", state };
  if (state !== "active") return { hold: "none", state };
  const lockKey = `${queue.toKey(jobId)}:lock`;
  const locked = (await redis.exists(lockKey)) === 1;
  if (!locked) return { hold: "none", state: "active, lock expired" };
  if (!deadOwned.has(jobId)) return { hold: "held", state };
  // Its worker is dead and cannot renew it: released now, BullMQ's stalled check redelivers the job.
  await redis.del(lockKey);
  return { hold: "dead-owner", state: "active, its worker is dead" };
}

/** Adds the job again (a finished or failed job of the same id is removed first: the job id is the row's id). */
async function enqueueAgain(queue: Queue, jobId: string, add: () => Promise<unknown>): Promise<void> {
  await queue.remove(jobId).catch(() => 0);
  await add();
}

/**
 * One pass. `heartbeats` may be given (read before this worker's own first beat, which
 * could overwrite a dead predecessor's with the same id after a container restart).
 */
export async function reconcile(deps: ReconcilerDeps, heartbeats?: WorkerHeartbeat[]): Promise<ReconcileReport> {
  const { db, log } = deps;
  const report: ReconcileReport = { failed: [], requeuedRuns: [], requeuedStudies: [], failedStudies: [], releasedLocks: [] };
  const beats = heartbeats ?? (await deps.readHeartbeats());
  const dead = beats.filter((b) => isDeadWorker(b, { workerId: deps.workerId }));
  const deadRuns = new Set(dead.flatMap((b) => b.runIds));
  const deadStudies = new Set(dead.flatMap((b) => b.studyIds));

  // Runs are read before studies: a study made between the two reads then has no runs in this pass, whereas read
  // the other way round its runs would be seen without their study and ended as if it had ended.
  const runs = await unfinishedRuns(db);
  // Studies first: whether a study is executing decides for its runs.
  const studyExecuting = new Map<string, boolean>();
  for (const study of await unfinishedStudies(db)) {
    if (deps.executing.studies.has(study.id)) {
      studyExecuting.set(study.id, true);
      continue;
    }
    const { hold, state } = await jobHold(deps.studyQueue, deps.queueRedis, study.id, deadStudies);
    if (hold === "dead-owner") report.releasedLocks.push(study.id);
    studyExecuting.set(study.id, hold === "held");
    if (hold !== "none") continue;
    const slog = log.child({ studyId: study.id });
    if (study.runs === 0) {
      await endUnfinishedStudy(db, study.id, "the study has no runs: nothing to execute");
      report.failedStudies.push(study.id);
      slog.warn("study with no runs ended FAILED");
      continue;
    }
    // Its runs in flight are ended below; then the study resumes with the rest.
    await enqueueAgain(deps.studyQueue, study.id, () => enqueueStudy(deps.studyQueue, { studyId: study.id }));
    report.requeuedStudies.push(study.id);
    slog.warn({ status: study.status, job: state }, "study had no job; enqueued again");
  }

  for (const run of runs) {
    if (deps.executing.runs.has(run.id)) continue;
    const rlog = log.child({ runId: run.id });
    try {
      if (run.studyId) {
        if (studyExecuting.get(run.studyId)) continue;
        if (run.status === "QUEUED") {
          // The study (enqueued again above, or final) decides; a final study's queued run will not start.
          if (
            !studyExecuting.has(run.studyId) &&
            (await endUnfinishedRun(db, run.id, "FAILED", "its study ended before this run started"))
          ) {
            report.failed.push(run.id);
            await tellRunFailed(deps, run.id, deps.log);
          }
          continue;
        }
        await endInterruptedRun(runContext(run.id, deps, new AbortController().signal), `${INTERRUPTED} (found by the reconciler)`).then(
          (ended) => ended && report.failed.push(run.id),
        );
        continue;
      }
      const { hold, state } = await jobHold(deps.runQueue, deps.queueRedis, run.id, deadRuns);
      if (hold === "dead-owner") report.releasedLocks.push(run.id);
      if (hold === "held") continue;
      if (run.status === "QUEUED") {
        if (hold === "pending") continue;
        await enqueueAgain(deps.runQueue, run.id, () => enqueueRun(deps.runQueue, { runId: run.id }));
        report.requeuedRuns.push(run.id);
        rlog.warn({ job: state }, "queued run had no job; enqueued again");
        continue;
      }
      // In flight and nobody executes it (a pending job only means a redelivery that would do the same).
      const ended = await endInterruptedRun(
        runContext(run.id, deps, new AbortController().signal),
        `${INTERRUPTED} (found by the reconciler; its job: ${state})`,
      );
      if (ended) report.failed.push(run.id);
    } catch (err) {
      rlog.error({ err: errorMessage(err) }, "could not reconcile the run");
    }
  }
  const changed = Object.values(report).some((l) => l.length > 0);
  if (changed) log.info(report, "reconciled");
  return report;
}
