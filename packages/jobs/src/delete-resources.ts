// Deleting a run or a study that may still be queued or under way: abort it first (a queued
// one at once; the worker tears one under way down within seconds), drop its queue job, wait
// until it is final, then delete the rows (packages/db deletion-scope.ts). One that does not
// stop in time is left alone and the caller is told to try again.
import { ConflictError, type WorkspaceScope } from "@opsbench/db";
import type { RunQueue } from "./queues";
import type { StudyQueue } from "./study-queue";

/** How long a delete waits for a run or a study under way to stop after its abort. */
export const DELETE_WAIT_MS = 30_000;

async function waitFinal(read: () => Promise<{ final: boolean; status: string }>, what: string, waitMs: number) {
  const until = Date.now() + waitMs;
  for (;;) {
    const s = await read();
    if (s.final) return;
    if (Date.now() > until) throw new ConflictError(`${what} is still ${s.status} after its abort: delete it again once it has stopped`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A waiting or delayed job is removed; an active one (locked by its worker) ends by the abort. */
async function removeJob(queue: RunQueue | StudyQueue, id: string) {
  await queue.remove(id).catch(() => 0);
}

export async function deleteRun(scope: WorkspaceScope, queue: RunQueue, id: string, waitMs = DELETE_WAIT_MS) {
  await scope.runs.abort(id);
  await removeJob(queue, id);
  await waitFinal(() => scope.deletion.runStatus(id), `run ${id}`, waitMs);
  return scope.deletion.deleteRun(id);
}

export async function deleteStudy(scope: WorkspaceScope, queue: StudyQueue, id: string, waitMs = DELETE_WAIT_MS) {
  await scope.studies.abort(id);
  await removeJob(queue, id);
  await waitFinal(() => scope.deletion.studyStatus(id), `study ${id}`, waitMs);
  return scope.deletion.deleteStudy(id);
}
