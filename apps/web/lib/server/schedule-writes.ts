// Saving, pausing, resuming and deleting a schedule, for the API's routes and the /schedules page's actions alike:
// the row first (the truth), then its BullMQ job scheduler made to follow it (packages/jobs schedules.ts). A
// scheduler that cannot be written (Redis away) fails the request; the row stays as saved and every worker's start
// makes the schedulers agree with the rows again.
import type { ScheduleInput } from "@opsbench/core";
import { NotFoundError, type WorkspaceScope } from "@opsbench/db";
import { removeScheduleScheduler, upsertScheduleScheduler } from "@opsbench/jobs";
import { ApiError } from "@/lib/api/errors";
import { assertCredentialsOpenTo, requesterOf } from "./credential-role";
import { getScheduleQueue } from "./singletons";
import type { SignedInMember } from "./workspace";

type What = ScheduleInput["what"];

/** A name the schedule refers to that does not exist is bad input (422 at its field), not a missing resource. */
async function named<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof NotFoundError && (err.entity === "target" || err.entity === "workload" || err.entity === "study")) {
      const path = err.entity === "study" ? "what.studyId" : `what.${err.entity}`;
      const message = err.entity === "study" ? `no study with id "${err.key}"` : `no ${err.entity} named "${err.key}"`;
      throw new ApiError("invalid_input", `${err.entity} "${err.key}" does not exist`, [{ path, message }]);
    }
    throw err;
  }
}

/** A member who may not deploy with a credential the schedule's target names may not schedule it either (403). */
async function assertMayStart(member: SignedInMember, what: What): Promise<void> {
  if (what.kind === "run") await assertCredentialsOpenTo(member, [{ ref: what.target, path: "what.target" }]);
}

export async function createSchedule(member: SignedInMember, input: ScheduleInput) {
  const { scope } = member;
  await assertMayStart(member, input.what);
  const row = await named(() => scope.schedules.create(input, { createdBy: requesterOf(member) }));
  try {
    await upsertScheduleScheduler(getScheduleQueue(), row);
  } catch (err) {
    // No scheduler, no schedule: the row goes too, so the caller's retry is a clean one.
    await scope.schedules.delete(row.id).catch(() => {});
    throw err;
  }
  return row;
}

export async function updateSchedule(member: SignedInMember, id: string, input: Omit<ScheduleInput, "paused">) {
  await assertMayStart(member, input.what);
  const row = await named(() => member.scope.schedules.update(id, input));
  await upsertScheduleScheduler(getScheduleQueue(), row);
  return row;
}

export async function setSchedulePaused(scope: WorkspaceScope, id: string, paused: boolean) {
  const row = await scope.schedules.setPaused(id, paused);
  await upsertScheduleScheduler(getScheduleQueue(), row);
  return row;
}

export async function deleteSchedule(scope: WorkspaceScope, id: string) {
  const row = await scope.schedules.delete(id);
  // A scheduler left behind (Redis away now) is removed by the worker at its next tick, which finds no schedule.
  await removeScheduleScheduler(getScheduleQueue(), row.id);
  return row;
}
