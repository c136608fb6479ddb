// What the API takes and returns for schedules (docs/schedules.md): a schedule as saved (POST, PUT), one with its
// next ticks and its latest ticks' outcomes (GET), paused or resumed, deleted.
import { SCHEDULE_TICK_OUTCOMES, scheduleInput } from "@opsbench/core";
import { z } from "zod";
import { id, isoTime } from "./wire";

/** POST /api/v1/schedules: a name, what each tick starts, the cron pattern and its time zone (default UTC). */
export const scheduleBody = scheduleInput;
/** PUT /api/v1/schedules/{id}: the same, without `paused` (pause and resume have routes of their own). */
export const scheduleUpdateBody = scheduleInput.omit({ paused: true });

const scheduleWhatSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("run"), target: z.string(), workload: z.string() }),
  /** The saved study the definition was copied from (null: deleted since; the copy still runs) and its name. */
  z.strictObject({ kind: z.literal("study"), studyId: id.nullable(), studyName: z.string() }),
]);

export const scheduleTickSchema = z.strictObject({
  /** The time the cron pattern named. */
  tickAt: isoTime,
  outcome: z.enum(SCHEDULE_TICK_OUTCOMES),
  /** Why it was skipped or failed. */
  reason: z.string().nullable(),
  runId: id.nullable(),
  studyId: id.nullable(),
});

export const scheduleSchema = z.strictObject({
  id,
  name: z.string(),
  what: scheduleWhatSchema,
  cron: z.string(),
  timeZone: z.string(),
  paused: z.boolean(),
  createdAt: isoTime,
  updatedAt: isoTime,
  /** The next five ticks (none while paused). */
  nextTicks: z.array(isoTime),
  /** The latest ticks, newest first, with their outcomes. */
  recentTicks: z.array(scheduleTickSchema),
});
export type ScheduleItem = z.infer<typeof scheduleSchema>;

export const scheduleDeletedSchema = z.strictObject({ id, deleted: z.literal(true) });
