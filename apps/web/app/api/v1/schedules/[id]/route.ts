import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";
import { toScheduleItem } from "@/lib/api/schedule-item";
import { audit } from "@/lib/server/audit";
import { deleteSchedule, updateSchedule } from "@/lib/server/schedule-writes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** One schedule with its next ticks and latest outcomes; 404 for an unknown id. */
export const GET = apiRoute<{ id: string }>(async ({ scope, params }) =>
  NextResponse.json(toScheduleItem(await scope.schedules.view(params.id)), { headers: { "cache-control": "no-store" } }),
);

/** Replaces the schedule's name, what it starts, pattern and zone; its scheduler follows. */
export const PUT = apiRoute<{ id: string }>(async ({ request, scope, member, params }) => {
  const input = await parseBody(API_CONTRACTS["PUT /api/v1/schedules/{id}"].body, request);
  const row = await updateSchedule(member, params.id, input);
  await audit(scope, request, {
    action: "schedule.update",
    subjectKind: "schedule",
    subjectId: row.id,
    detail: { name: row.name, cron: row.cron, timeZone: row.timeZone, kind: row.kind },
  });
  return NextResponse.json(toScheduleItem(await scope.schedules.view(row.id)));
});

/** Deletes the schedule (its scheduler first stops ticking); what it started stays. */
export const DELETE = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const row = await deleteSchedule(scope, params.id);
  await audit(scope, request, { action: "schedule.delete", subjectKind: "schedule", subjectId: row.id, detail: { name: row.name } });
  return NextResponse.json({ id: row.id, deleted: true });
});
