import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/errors";
import { toScheduleItem } from "@/lib/api/schedule-item";
import { audit } from "@/lib/server/audit";
import { setSchedulePaused } from "@/lib/server/schedule-writes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Pauses the schedule: its job scheduler is removed, so no tick comes until it is resumed; pausing a paused one changes nothing. */
export const POST = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const row = await setSchedulePaused(scope, params.id, true);
  await audit(scope, request, { action: "schedule.pause", subjectKind: "schedule", subjectId: row.id, detail: { name: row.name } });
  return NextResponse.json(toScheduleItem(await scope.schedules.view(row.id)));
});
