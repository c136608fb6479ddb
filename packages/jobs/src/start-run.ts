import type { WorkspaceScope } from "@opsbench/db";
import { enqueueRun, type RunQueue } from "./queues";

/** Creates the Run row, then enqueues it. If enqueueing fails, the row is marked FAILED, not left QUEUED forever. */
export async function startRun(scope: WorkspaceScope, queue: RunQueue, args: Parameters<WorkspaceScope["runs"]["create"]>[0]) {
  const run = await scope.runs.create(args);
  await enqueueOrFail(scope, queue, run.id);
  return run;
}

export async function enqueueOrFail(scope: WorkspaceScope, queue: RunQueue, runId: string) {
  try {
    await enqueueRun(queue, { runId });
  } catch (err) {
    await scope.runs.failBeforeStart(runId, `could not enqueue: ${(err as Error).message}`);
    throw err;
  }
}
