// The "results-exports" queue (docs/exports.md): when a run succeeds (the worker's teardown) or is imported (the k6
// import route), exportRun() writes one pending export per enabled exporter of its workspace and enqueues each; a
// worker sends the run's series, up to EXPORT_ATTEMPTS times with a growing delay (its backoff strategy, named
// EXPORT_BACKOFF here), recording every attempt on the row. As with notifications, the row is the truth and the job
// only carries its id.
import { NOTIFICATION_ATTEMPTS } from "@opsbench/core";
import { type Db, recordRunExports } from "@opsbench/db";
import { z } from "zod";
import { createOpsbenchQueue } from "./queues";

export const EXPORT_QUEUE = "results-exports";
/** The name of the worker's backoff strategy for export jobs (exponential from OPSBENCH_NOTIFICATION_RETRY_BASE_MS). */
export const EXPORT_BACKOFF = "opsbench-export";
/** As many attempts as a notification gets (10 s, 20 s, 40 s, 80 s apart by default). */
export const EXPORT_ATTEMPTS = NOTIFICATION_ATTEMPTS;

export const exportJobPayload = z.object({ exportId: z.uuid() }).strict();
export type ExportJobPayload = z.infer<typeof exportJobPayload>;

export const createExportQueue = (redisUrl: string, prefix?: string) =>
  createOpsbenchQueue<ExportJobPayload>(EXPORT_QUEUE, redisUrl, prefix);
export type ExportQueue = ReturnType<typeof createExportQueue>;

/** Queues the run's export to every enabled exporter of its workspace (nothing for a run that did not succeed, or was sent already). */
export async function exportRun(db: Db, queue: ExportQueue, runId: string): Promise<string[]> {
  const ids = await recordRunExports(db, runId);
  await enqueueExports(queue, ids);
  return ids;
}

/** Queues exports recordRunExports wrote (the CLI opens its queue only when there are some). */
export async function enqueueExports(queue: ExportQueue, exportIds: readonly string[]): Promise<void> {
  // jobId = exportId: enqueuing twice sends once.
  for (const exportId of exportIds)
    await queue.add("export", { exportId }, { jobId: exportId, attempts: EXPORT_ATTEMPTS, backoff: { type: EXPORT_BACKOFF } });
}
