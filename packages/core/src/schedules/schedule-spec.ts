// A schedule: a run (target x workload) or a study started on a cron pattern in an IANA time zone (docs/schedules.md).
// The pattern is read by cron-parser, the same version BullMQ's job schedulers read it with, so the next ticks
// shown are the ticks the worker gets. Five fields only (minute to day of week): a seconds field would allow a load
// test a second, and "@hourly"-style names read differently across libraries.
import { CronExpressionParser } from "cron-parser";
import { z } from "zod";
import { targetName } from "../targets/local-specs";

/** Why `pattern` is not a five-field cron pattern; null when it is one. */
export function cronProblem(pattern: string): string | null {
  const fields = pattern.trim().split(/\s+/);
  if (pattern.trim() === "") return "a cron pattern is needed, e.g. '0 * * * *' (every hour)";
  if (fields.length !== 5)
    return `'${pattern}' is not a cron pattern: it has ${fields.length} field${fields.length === 1 ? "" : "s"}, five are needed (minute hour day-of-month month day-of-week)`;
  try {
    // A pattern can parse and still name no time that exists (31 April and June): it would never tick.
    CronExpressionParser.parse(fields.join(" "), { tz: "UTC" }).next();
    return null;
  } catch (err) {
    return `'${pattern}' is not a cron pattern: ${describeCronError((err as Error).message, fields)}`;
  }
}

const FIELD_NAMES = ["minute", "hour", "day of month", "month", "day of week"] as const;
const FIELD_RANGES = ["0-59", "0-23", "1-31", "1-12", "0-7"];

/** cron-parser's "Constraint error, got value 61 expected range 0-59" as "minute 61 is out of range (0-59)". */
function describeCronError(message: string, fields: string[]): string {
  const m = /got value (\S+) expected range (\S+)/.exec(message);
  if (m) {
    const index = FIELD_RANGES.indexOf(m[2]!);
    const field = index >= 0 ? FIELD_NAMES[index] : "a field";
    return `${field} ${m[1]} is out of range (${m[2]})`;
  }
  if (/explicit day of month|loop limit/i.test(message)) return "no day it names exists in the months it names (e.g. 31 April)";
  const bad = /got value: (\S+)/.exec(message);
  if (bad) {
    const index = fields.findIndex((f) => f.includes(bad[1]!));
    return `${index >= 0 ? FIELD_NAMES[index] : "a field"} '${index >= 0 ? fields[index] : bad[1]}' has characters a cron field cannot have`;
  }
  return message.charAt(0).toLowerCase() + message.slice(1);
}

/** Whether `zone` is an IANA time zone this runtime knows (Intl's own list, as the scheduler's date library uses). */
export function isTimeZone(zone: string): boolean {
  if (zone.trim() === "" || zone !== zone.trim()) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const cronPattern = z
  .string()
  .max(100)
  .transform((s) => s.trim().split(/\s+/).join(" "))
  .superRefine((s, ctx) => {
    const problem = cronProblem(s);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export const timeZoneName = z
  .string()
  .max(64)
  .refine(isTimeZone, { error: (issue) => `${JSON.stringify(issue.input)} is not an IANA time zone (e.g. "Europe/Berlin", "UTC")` });

/** What a tick starts: a run of a saved target x workload, or a study of a saved study's definition. */
export const scheduleWhat = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("run"), target: targetName, workload: targetName }).strict(),
  z.object({ kind: z.literal("study"), studyId: z.uuid() }).strict(),
]);
export type ScheduleWhat = z.infer<typeof scheduleWhat>;

/** The body of POST /api/v1/schedules (and PUT of one, where `paused` is left to pause and resume). */
export const scheduleInput = z
  .object({
    name: z.string().trim().min(1).max(100),
    what: scheduleWhat,
    cron: cronPattern,
    timeZone: timeZoneName.default("UTC"),
    paused: z.boolean().default(false),
  })
  .strict();
export type ScheduleInput = z.infer<typeof scheduleInput>;
export type ScheduleInputDraft = z.input<typeof scheduleInput>;

/** The next `count` tick times of a valid pattern in its zone, after `from` (epoch ms, as BullMQ's scheduler counts). */
export function nextTicks(pattern: string, timeZone: string, count = 5, from: Date = new Date()): Date[] {
  const it = CronExpressionParser.parse(pattern, { tz: timeZone, currentDate: from });
  const out: Date[] = [];
  try {
    for (let i = 0; i < count; i++) out.push(it.next().toDate());
  } catch {
    // The library's search gave up (a pattern whose ticks are years apart): the ticks found so far.
  }
  return out;
}

export const SCHEDULE_TICK_OUTCOMES = ["RAN", "SKIPPED", "FAILED"] as const;
export type ScheduleTickOutcome = (typeof SCHEDULE_TICK_OUTCOMES)[number];
