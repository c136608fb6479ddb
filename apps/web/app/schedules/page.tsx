import type { Metadata } from "next";
import { RoleGate } from "@/components/auth/role-gate";
import { EmptyState } from "@/components/empty-state";
import { PageHeader, Panel } from "@/components/panel";
import { ScheduleForm } from "@/features/schedules/schedule-form";
import { SchedulesTable } from "@/features/schedules/schedules-table";
import { toScheduleItem } from "@/lib/api/schedule-item";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Schedules" };

export default async function SchedulesPage() {
  const scope = await resolveWorkspace();
  const [schedules, targets, workloads, studies] = await Promise.all([
    scope.schedules.list(),
    scope.targets.list(),
    scope.workloads.list(),
    scope.studies.list(100),
  ]);
  const items = schedules.map(toScheduleItem);
  return (
    <div className="space-y-4">
      <PageHeader title="Schedules" />
      <Panel title={`Schedules (${items.length})`}>
        {items.length === 0 ? (
          <EmptyState testId="schedules-empty">
            No schedules yet. A schedule starts a run (a target × a workload) or a study again on a cron pattern in a time zone, once per
            tick however many workers there are; a tick is skipped, with its reason, while the previous one is still going or when the
            workspace's limits refuse it.
          </EmptyState>
        ) : (
          <SchedulesTable schedules={items} />
        )}
      </Panel>
      <RoleGate atLeast="editor">
        <Panel title="New schedule">
          <ScheduleForm
            targets={targets.map((t) => t.name)}
            workloads={workloads.map((w) => w.name)}
            studies={studies.map((s) => ({ id: s.id, name: s.name }))}
          />
        </Panel>
      </RoleGate>
    </div>
  );
}
