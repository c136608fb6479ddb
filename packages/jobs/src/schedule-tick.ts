// One tick of a schedule, as the worker does it (docs/schedules.md). The tick's row is inserted first: its UNIQUE
// (schedule, tick time) is the once-only guarantee, so a tick delivered twice (two workers, a redelivery after a
// crash) starts at most one run or study. Then, in order: skipped while the run or study of the schedule's last tick
// is still queued or under way; skipped when the workspace's limits refuse (workRefusal: the API's checks); else the
// run or study is started through the API's own path (startRun, startStudy), asked for by the schedule's creator
// (the worker checks their credentials before deploying, as for a request). What happened is recorded on the row.
import { NotFoundError, scheduleTargetOf, scheduleTicks, type Db, workspaceScope } from "@opsbench/db";
import { studyRunCount } from "@opsbench/core";
import type { Redis } from "ioredis";
import type { RunQueue } from "./queues";
import { startRun } from "./start-run";
import { startStudy } from "./start-study";
import type { StudyQueue } from "./study-queue";
import { workRefusal } from "./work-admission";

export interface ScheduleTickDeps {
  db: Db;
  /** The rate counters (the API's run creations a minute). */
  redis: Redis;
  runQueue: RunQueue;
  studyQueue: StudyQueue;
}

/** A tick's outcome as recorded (RAN, SKIPPED, FAILED), or why nothing was recorded. */
export type TickResult =
  | { outcome: "RAN"; tickId: string; scheduleId: string; workspaceId: string; tickAt: Date; runId?: string; studyId?: string }
  | { outcome: "SKIPPED" | "FAILED"; tickId: string; scheduleId: string; workspaceId: string; tickAt: Date; reason: string }
  /** The schedule was deleted (its scheduler should go) or paused since the job was made: no tick. */
  | { outcome: "gone" | "paused"; scheduleId: string; tickAt: Date }
  /** Another delivery of this tick recorded it already: nothing started. */
  | { outcome: "duplicate"; scheduleId: string; tickAt: Date };

/** A study's name for one tick: the definition's, and the tick's time (UTC, to the minute). */
const tickStudyName = (name: string, tickAt: Date) => {
  const suffix = ` (${tickAt.toISOString().slice(0, 16).replace("T", " ")} UTC)`;
  return `${name.slice(0, 100 - suffix.length)}${suffix}`;
};

export async function runScheduleTick(deps: ScheduleTickDeps, scheduleId: string, tickAt: Date): Promise<TickResult> {
  const ticks = scheduleTicks(deps.db);
  const schedule = await ticks.schedule(scheduleId);
  if (!schedule) return { outcome: "gone", scheduleId, tickAt };
  if (schedule.paused) return { outcome: "paused", scheduleId, tickAt };
  const tick = await ticks.claim(scheduleId, tickAt);
  if (!tick) return { outcome: "duplicate", scheduleId, tickAt };
  const base = { tickId: tick.id, scheduleId, workspaceId: schedule.workspaceId, tickAt };

  const decide = async (): Promise<TickResult> => {
    const going = await ticks.previousStillGoing(scheduleId, tickAt);
    if (going)
      return { ...base, outcome: "SKIPPED", reason: `the previous ${going.kind} ${going.id} is still ${going.status.toLowerCase()}` };
    const what = scheduleTargetOf(schedule);
    if (!what)
      return { ...base, outcome: "FAILED", reason: "the schedule's study definition can no longer be read; save the schedule again" };
    const scope = workspaceScope(deps.db, schedule.workspaceId);
    const limits = await scope.limits.get();
    const newRuns = what.kind === "run" ? 1 : studyRunCount(what.definition);
    const refused = await workRefusal(scope, limits, deps.redis, newRuns);
    if (refused) return { ...base, outcome: "SKIPPED", reason: `the workspace's limits refuse it: ${refused.reason}` };
    if (what.kind === "run") {
      const run = await startRun(scope, deps.runQueue, {
        targetName: what.target,
        workloadName: what.workload,
        requestedBy: schedule.createdBy,
      });
      return { ...base, outcome: "RAN", runId: run.id };
    }
    const { study } = await startStudy(
      scope,
      deps.studyQueue,
      { ...what.definition, name: tickStudyName(what.definition.name, tickAt) },
      { requestedBy: schedule.createdBy },
    );
    return { ...base, outcome: "RAN", studyId: study.id };
  };

  let result: TickResult;
  try {
    result = await decide();
  } catch (err) {
    const reason =
      err instanceof NotFoundError ? `${err.entity} "${err.key}" does not exist` : `could not start: ${(err as Error).message}`;
    result = { ...base, outcome: "FAILED", reason };
  }
  await ticks.record(tick.id, {
    outcome: result.outcome as "RAN" | "SKIPPED" | "FAILED",
    reason: "reason" in result ? result.reason : null,
    ...("runId" in result && result.runId ? { runId: result.runId } : {}),
    ...("studyId" in result && result.studyId ? { studyId: result.studyId } : {}),
  });
  return result;
}
