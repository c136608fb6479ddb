import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";
import { toScheduleItem } from "@/lib/api/schedule-item";
import { audit } from "@/lib/server/audit";
import { createSchedule } from "@/lib/server/schedule-writes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The workspace's schedules, by name, with their next ticks and latest outcomes. */
export const GET = apiRoute(async ({ scope }) =>
  NextResponse.json((await scope.schedules.list()).map(toScheduleItem), { headers: { "cache-control": "no-store" } }),
);

/**
 * Saves a schedule and its job scheduler (docs/schedules.md). A pattern that is not a five-field cron pattern, a
 * zone that is not an IANA time zone, or a target, workload or study that does not exist is a 422 naming the field.
 */
export const POST = apiRoute(async ({ request, scope, member }) => {
  const input = await parseBody(API_CONTRACTS["POST /api/v1/schedules"].body, request);
  const row = await createSchedule(member, input);
  await audit(scope, request, {
    action: "schedule.create",
    subjectKind: "schedule",
    subjectId: row.id,
    detail: { name: row.name, cron: row.cron, timeZone: row.timeZone, kind: row.kind, paused: row.paused },
  });
  return NextResponse.json(toScheduleItem(await scope.schedules.view(row.id)), { status: 201 });
});
