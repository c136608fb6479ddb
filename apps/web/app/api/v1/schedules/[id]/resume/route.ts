import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";
import { toScheduleItem } from "@/lib/api/schedule-item";
import { audit } from "@/lib/server/audit";
import { setSchedulePaused } from "@/lib/server/schedule-writes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Resumes the schedule: its job scheduler is made again, ticking from the pattern's next time (ticks missed while paused are not made up). */
export const POST = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const row = await setSchedulePaused(scope, params.id, false);
  await audit(scope, request, { action: "schedule.resume", subjectKind: "schedule", subjectId: row.id, detail: { name: row.name } });
  return NextResponse.json(toScheduleItem(await scope.schedules.view(row.id)));
});
