// A schedule as the API and the /schedules page show it (GET /api/v1/schedules): the view without who made it
// (a user id, not for every viewer), dates as ISO strings.
import type { ScheduleItem } from "@opsbench/api";
import type { ScheduleView } from "@opsbench/db";

export function toScheduleItem(v: ScheduleView): ScheduleItem {
  return {
    id: v.id,
    name: v.name,
    what: v.what,
    cron: v.cron,
    timeZone: v.timeZone,
    paused: v.paused,
    createdAt: v.createdAt.toISOString(),
    updatedAt: v.updatedAt.toISOString(),
    nextTicks: v.nextTicks.map((d) => d.toISOString()),
    recentTicks: v.recentTicks.map((t) => ({ ...t, tickAt: t.tickAt.toISOString() })),
  };
}
