// The consumer side of the queues a worker takes jobs from: each one's name, payload schema and how it is
// consumed (concurrency, stalled-job settings). The worker's catalog (apps/worker/src/consumers.ts) gives each a
// handler, and startConsumer serves any of them the same way: a payload that does not parse fails its job for
// good (never retried), a valid one goes to the handler.
import { type Job, UnrecoverableError, Worker } from "bullmq";
import type { z } from "zod";
import { CREDENTIAL_CHECK_QUEUE, credentialCheckPayload } from "./credential-check";
import { LOAD_QUEUE, segmentJobPayload } from "./load-segments";
import { queueFailures, queueProcessingSeconds, queueWaitSeconds } from "./metrics";
import { NOTIFICATION_QUEUE, notificationJobPayload } from "./notifications";
import { EXPORT_QUEUE, exportJobPayload } from "./results-exports";
import { queuePrefix, RUN_QUEUE, redisConnection, runJobPayload, STALLED_JOB_SETTINGS } from "./queues";
import { SCHEDULE_QUEUE, scheduleJobPayload } from "./schedules";
import { SCRIPT_VALIDATION_QUEUE, scriptValidationPayload } from "./script-validation";
import { STUDY_QUEUE, studyJobPayload } from "./study-queue";

export interface ConsumedQueue<Schema extends z.ZodType = z.ZodType> {
  name: string;
  payload: Schema;
  concurrency: number;
  /** BullMQ's job lock and stalled-job checks (defaults: BullMQ's). */
  lock?: { lockDuration: number; stalledInterval?: number; maxStalledCount?: number };
  /** Whether a bad payload's job says what is wrong (not for one that carries a sealed secret). */
  revealIssues: boolean;
}

const consumed = <Schema extends z.ZodType>(q: ConsumedQueue<Schema>) => q;

export const CONSUMED_QUEUES = {
  run: consumed({ name: RUN_QUEUE, payload: runJobPayload, concurrency: 1, lock: STALLED_JOB_SETTINGS, revealIssues: true }),
  study: consumed({ name: STUDY_QUEUE, payload: studyJobPayload, concurrency: 1, lock: STALLED_JOB_SETTINGS, revealIssues: true }),
  load: consumed({ name: LOAD_QUEUE, payload: segmentJobPayload, concurrency: 1, lock: { lockDuration: 60_000 }, revealIssues: true }),
  // Validation and credential checks are short and light; two at once keep a submit from waiting behind another.
  scriptValidation: consumed({ name: SCRIPT_VALIDATION_QUEUE, payload: scriptValidationPayload, concurrency: 2, revealIssues: true }),
  credentialCheck: consumed({ name: CREDENTIAL_CHECK_QUEUE, payload: credentialCheckPayload, concurrency: 2, revealIssues: false }),
  // A schedule's tick only writes rows and enqueues (the run or study queues as any other); two at once keep one
  // schedule's slow database from holding up another's tick.
  schedule: consumed({ name: SCHEDULE_QUEUE, payload: scheduleJobPayload, concurrency: 2, revealIssues: true }),
  // Webhooks and e-mails wait on other servers (bounded by a time-out each): several at once, so one slow receiver
  // holds up no other workspace's.
  notifications: consumed({ name: NOTIFICATION_QUEUE, payload: notificationJobPayload, concurrency: 4, revealIssues: true }),
  // Results exports (docs/exports.md) read a run's series and wait on another server: two at once.
  exports: consumed({ name: EXPORT_QUEUE, payload: exportJobPayload, concurrency: 2, revealIssues: true }),
};

/** A consumer of `queue`: parses each job's payload and hands it to `handle`. `autorun: false` waits for its run(). */
export function startConsumer<Schema extends z.ZodType, Result>(
  queue: ConsumedQueue<Schema>,
  redisUrl: string,
  handle: (payload: z.output<Schema>, job: Job) => Promise<Result>,
  {
    autorun = true,
    backoffStrategy,
  }: {
    autorun?: boolean;
    /** The delay before a failed job's next attempt (jobs added with `backoff: { type: <its name> }`). */
    backoffStrategy?: (attemptsMade: number, type?: string) => number;
  } = {},
): Worker<z.input<Schema>, Result> {
  return new Worker<z.input<Schema>, Result>(
    queue.name,
    async (job) => {
      // Every queue's wait, processing time and failures are recorded here, the one place jobs are taken.
      const started = Date.now();
      queueWaitSeconds.observe({ queue: queue.name }, Math.max(0, started - job.timestamp - (job.delay ?? 0)) / 1000);
      const done = (outcome: "completed" | "failed") =>
        queueProcessingSeconds.observe({ queue: queue.name, outcome }, (Date.now() - started) / 1000);
      try {
        const parsed = queue.payload.safeParse(job.data);
        if (!parsed.success)
          throw new UnrecoverableError(queue.revealIssues ? `bad job payload: ${parsed.error.message}` : `bad ${queue.name} payload`);
        const result = await handle(parsed.data, job);
        done("completed");
        return result;
      } catch (err) {
        done("failed");
        queueFailures.inc({ queue: queue.name });
        throw err;
      }
    },
    {
      connection: redisConnection(redisUrl),
      prefix: queuePrefix(redisUrl),
      concurrency: queue.concurrency,
      ...queue.lock,
      autorun,
      ...(backoffStrategy ? { settings: { backoffStrategy } } : {}),
    },
  );
}
