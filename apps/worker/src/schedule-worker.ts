// A worker's part in schedules (docs/schedules.md): at start, the job schedulers are made to agree with the rows
// (a Redis that lost its data, a schedule saved while Redis was away), and each tick's job is done by
// runScheduleTick (packages/jobs schedule-tick.ts). A skipped tick is logged here with its reason; its row is the
// record (schedule_ticks), written by scheduleTicks().record in packages/db.
import { scheduleTicks } from "@opsbench/db";
import { removeScheduleScheduler, runScheduleTick, syncScheduleSchedulers, type TickResult, tickTimeOf } from "@opsbench/jobs";
import type { Job } from "bullmq";
import type { Logger } from "./logger";
import type { Services } from "./services";

/** Makes the schedules queue's job schedulers those of the schedules not paused; a failure is logged, not fatal. */
export async function syncSchedules({ db, queues }: Services, log: Logger): Promise<void> {
  try {
    const r = await syncScheduleSchedulers(queues.schedule, () => scheduleTicks(db).active());
    log.info({ upserted: r.upserted, removed: r.removed }, "schedule schedulers in place");
    for (const f of r.failed) log.error({ scheduleId: f.id, err: f.error }, "a schedule's scheduler could not be written");
  } catch (err) {
    log.error({ err }, "the schedule schedulers could not be made to agree with the schedules; the next worker start tries again");
  }
}

/** One tick's job: the tick (recorded once), then its log line. */
export async function handleScheduleTick(
  services: Services,
  log: Logger,
  scheduleId: string,
  job: Job,
  onTick?: (result: TickResult) => unknown,
): Promise<TickResult> {
  const tickAt = tickTimeOf(job);
  const { db, redis, queues } = services;
  const result = await runScheduleTick({ db, redis, runQueue: queues.run, studyQueue: queues.study }, scheduleId, tickAt);
  const fields = { scheduleId, tickAt: tickAt.toISOString(), jobId: job.id };
  if (result.outcome === "gone") {
    // Deleted while its scheduler stayed (the web app could not reach Redis): the scheduler goes now.
    await removeScheduleScheduler(queues.schedule, scheduleId);
    log.info(fields, "schedule tick of a deleted schedule: its scheduler is removed");
  } else if (result.outcome === "SKIPPED") {
    // The one place a skipped tick is known with its reason, its row already written: told once per tick, whichever
    // worker took it (the duplicate delivery of a tick ends at "duplicate" above, without a row of its own).
    log.warn({ ...fields, reason: result.reason }, "schedule tick skipped");
    await notifyScheduleSkipped(services, log, result);
  } else if (result.outcome === "FAILED") log.error({ ...fields, reason: result.reason }, "schedule tick failed");
  else if (result.outcome === "RAN") log.info({ ...fields, runId: result.runId, studyId: result.studyId }, "schedule tick started");
  else log.info({ ...fields, outcome: result.outcome }, "schedule tick not taken");
  await onTick?.(result);
  return result;
}

/** "schedule.skipped" to the schedule's workspace; a notification that cannot be recorded is logged, not fatal. */
async function notifyScheduleSkipped(
  { db, notifier }: Services,
  log: Logger,
  tick: Extract<TickResult, { reason: string }>,
): Promise<void> {
  try {
    const schedule = await scheduleTicks(db).schedule(tick.scheduleId);
    const name = schedule?.name ?? tick.scheduleId;
    await notifier.notify({
      workspaceId: tick.workspaceId,
      event: "schedule.skipped",
      text: `Schedule "${name}" skipped its tick of ${tick.tickAt.toISOString().slice(0, 16).replace("T", " ")} UTC: ${tick.reason}`,
      path: "/schedules",
      detail: { scheduleId: tick.scheduleId, tickAt: tick.tickAt.toISOString(), reason: tick.reason },
    });
  } catch (err) {
    log.error({ err, scheduleId: tick.scheduleId }, "the schedule-skipped notification could not be recorded");
  }
}
