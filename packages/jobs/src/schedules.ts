// The schedules queue (docs/schedules.md): one BullMQ job scheduler per schedule that is not paused, its cron
// pattern in its time zone, each tick one job { scheduleId } that one worker takes. The rows are the truth: the web
// app upserts or removes a schedule's scheduler when it saves, pauses, resumes or deletes it, and every worker makes
// the schedulers agree with the rows at start (a Redis that lost its data gets them back). A tick's job carries
// the tick's time (BullMQ's prevMillis); the worker's tick (schedule-tick.ts) inserts the tick's row first, whose
// UNIQUE (schedule, tick time) keeps a tick from starting twice, whatever BullMQ delivers.
import type { Job, Queue } from "bullmq";
import { z } from "zod";
import { createOpsbenchQueue } from "./queues";

export const SCHEDULE_QUEUE = "schedules";

export const scheduleJobPayload = z.object({ scheduleId: z.uuid() }).strict();
export type ScheduleJobPayload = z.infer<typeof scheduleJobPayload>;

export const createScheduleQueue = (redisUrl: string, prefix?: string) =>
  createOpsbenchQueue<ScheduleJobPayload>(SCHEDULE_QUEUE, redisUrl, prefix);
export type ScheduleQueue = ReturnType<typeof createScheduleQueue>;

/** A schedule as its job scheduler needs it. */
export interface SchedulerSpec {
  id: string;
  cron: string;
  timeZone: string;
  paused?: boolean;
}

const SCHEDULER_PREFIX = "schedule:";
export const schedulerIdOf = (scheduleId: string) => `${SCHEDULER_PREFIX}${scheduleId}`;

/** Creates or replaces a schedule's job scheduler; a paused schedule has none (its ticks stop until it is resumed). */
export async function upsertScheduleScheduler(queue: Queue, s: SchedulerSpec): Promise<void> {
  if (s.paused) {
    await removeScheduleScheduler(queue, s.id);
    return;
  }
  await queue.upsertJobScheduler(
    schedulerIdOf(s.id),
    { pattern: s.cron, tz: s.timeZone },
    {
      name: "tick",
      data: { scheduleId: s.id },
      // The tick's row is the record; the jobs are kept only briefly, for inspection.
      opts: { removeOnComplete: { count: 200 }, removeOnFail: { count: 200 } },
    },
  );
}

/** Removes a schedule's job scheduler and its next tick's job (nothing when it has none). */
export async function removeScheduleScheduler(queue: Queue, scheduleId: string): Promise<void> {
  await queue.removeJobScheduler(schedulerIdOf(scheduleId));
}

/**
 * Makes the queue's schedulers those of `active` (the schedules not paused): each upserted (one that exists with
 * the same pattern keeps its next tick: the job id is the scheduler's and the tick's time), any other removed.
 */
export async function syncScheduleSchedulers(
  queue: Queue,
  loadActive: () => Promise<SchedulerSpec[]>,
): Promise<{ upserted: number; removed: number; failed: { id: string; error: string }[] }> {
  // Listed whole before any is removed (a removal would shift the pages), and before the rows are read: a schedule
  // saved meanwhile has its row written before its scheduler, so its scheduler is either not listed or its row read.
  // (Rows read first, a schedule saved between the two had its new scheduler removed: seen when a worker started.)
  const listed: string[] = [];
  for (let start = 0; ; start += 100) {
    const page = await queue.getJobSchedulers(start, start + 99, true);
    for (const s of page) if (s.key.startsWith(SCHEDULER_PREFIX)) listed.push(s.key);
    if (page.length < 100) break;
  }
  const active = await loadActive();
  const wanted = new Set(active.map((s) => schedulerIdOf(s.id)));
  const stale = listed.filter((key) => !wanted.has(key));
  for (const key of stale) await queue.removeJobScheduler(key);
  const removed = stale.length;
  // One schedule's scheduler that cannot be written (e.g. BullMQ refuses a job id still held by a finished tick)
  // does not keep the others from theirs.
  const failed: { id: string; error: string }[] = [];
  for (const s of active) {
    try {
      await upsertScheduleScheduler(queue, s);
    } catch (err) {
      failed.push({ id: s.id, error: (err as Error).message });
    }
  }
  return { upserted: active.length - failed.length, removed, failed };
}

/**
 * The time a tick's job stands for: the cron pattern's time, as its job id ends ("repeat:<scheduler>:<millis>": BullMQ
 * makes one job per scheduler and time, and this is how it names it), else its prevMillis.
 */
export function tickTimeOf(job: Pick<Job, "id" | "opts">): Date {
  const millis = Number(/^repeat:.+:(\d+)$/.exec(job.id ?? "")?.[1]);
  if (Number.isFinite(millis) && millis > 0) return new Date(millis);
  const prev = (job.opts as { prevMillis?: number }).prevMillis;
  if (typeof prev === "number" && prev > 0) return new Date(prev);
  throw new Error(`job ${job.id} is not a schedule's tick (no tick time)`);
}
