import type { StudyInput } from "@opsbench/core";
import type { WorkspaceScope } from "@opsbench/db";
import { enqueueStudy, type StudyQueue } from "./study-queue";

/**
 * Creates the study and all its runs (one transaction), then enqueues it. If
 * enqueueing fails, the study and its runs are marked FAILED, not left QUEUED forever.
 */
export async function startStudy(scope: WorkspaceScope, queue: StudyQueue, input: StudyInput, opts: { requestedBy?: string | null } = {}) {
  const created = await scope.studies.create(input, opts);
  try {
    await enqueueStudy(queue, { studyId: created.study.id });
  } catch (err) {
    await scope.studies.failBeforeStart(created.study.id, `could not enqueue: ${(err as Error).message}`);
    throw err;
  }
  return created;
}
