// The schedules list: what each starts, its pattern in its zone, whether it is paused, its next ticks (in its own
// zone, as the pattern reads) and its latest ticks' outcomes, a skipped or failed one with its reason.
import type { ScheduleItem } from "@opsbench/api";
import Link from "next/link";
import { ListTable } from "@/components/list-table";
import { NO_VALUE } from "@/lib/format";
import { ScheduleActions } from "./schedule-actions";

/** A time as "2026-11-30 03:00" in `timeZone` (the server renders it: the same text in every browser). */
function inZone(iso: string, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

const OUTCOME_STYLE: Record<ScheduleItem["recentTicks"][number]["outcome"], string> = {
  RAN: "bg-emerald-50 text-emerald-800 ring-emerald-300",
  SKIPPED: "bg-amber-50 text-amber-900 ring-amber-300",
  FAILED: "bg-red-50 text-red-800 ring-red-300",
};

function Tick({ tick, timeZone }: { tick: ScheduleItem["recentTicks"][number]; timeZone: string }) {
  const started = tick.runId ? `/runs/${tick.runId}` : tick.studyId ? `/studies/${tick.studyId}` : null;
  return (
    <li data-testid="schedule-tick" data-outcome={tick.outcome} className="flex flex-wrap items-baseline gap-x-2">
      <span className="font-mono text-zinc-600">{inZone(tick.tickAt, timeZone)}</span>
      <span className={`rounded px-1 font-mono text-2xs font-medium ring-1 ring-inset ${OUTCOME_STYLE[tick.outcome]}`}>{tick.outcome}</span>
      {started && (
        <Link href={started} className="text-blue-700 hover:underline">
          {tick.runId ? "run" : "study"}
        </Link>
      )}
      {tick.reason && <span className="text-zinc-700">{tick.reason}</span>}
    </li>
  );
}

export function SchedulesTable({ schedules }: { schedules: ScheduleItem[] }) {
  return (
    <ListTable
      testId="schedules-table"
      rows={schedules}
      rowKey={(s) => s.id}
      rowData={(s) => ({ "data-testid": "schedule-row", "data-schedule-id": s.id, "data-paused": String(s.paused) })}
      columns={[
        { header: "Name", className: "font-medium", cell: (s) => s.name },
        {
          header: "Starts",
          cell: (s) =>
            s.what.kind === "run" ? (
              <span className="font-mono">
                {s.what.target} × {s.what.workload}
              </span>
            ) : s.what.studyId ? (
              <span>
                study{" "}
                <Link href={`/studies/${s.what.studyId}`} className="text-blue-700 hover:underline">
                  {s.what.studyName}
                </Link>
              </span>
            ) : (
              <span>study {s.what.studyName}</span>
            ),
        },
        {
          header: "When",
          className: "whitespace-nowrap",
          cell: (s) => (
            <>
              <code className="font-mono">{s.cron}</code> <span className="text-zinc-600">{s.timeZone}</span>
            </>
          ),
        },
        {
          header: "State",
          cell: (s) =>
            s.paused ? (
              <span data-testid="schedule-state" className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-2xs font-medium text-zinc-700">
                PAUSED
              </span>
            ) : (
              <span
                data-testid="schedule-state"
                className="rounded bg-emerald-50 px-1.5 py-0.5 font-mono text-2xs font-medium text-emerald-800"
              >
                ACTIVE
              </span>
            ),
        },
        {
          header: "Next ticks",
          className: "whitespace-nowrap font-mono text-zinc-700",
          cell: (s) =>
            s.nextTicks.length === 0 ? (
              NO_VALUE
            ) : (
              <ol data-testid="schedule-next" aria-label={`next ticks of ${s.name}, ${s.timeZone}`}>
                {s.nextTicks.slice(0, 3).map((t) => (
                  <li key={t}>{inZone(t, s.timeZone)}</li>
                ))}
              </ol>
            ),
        },
        {
          header: "Latest ticks",
          cell: (s) =>
            s.recentTicks.length === 0 ? (
              <span className="text-zinc-600">none yet</span>
            ) : (
              <ul className="space-y-0.5" aria-label={`latest ticks of ${s.name}`}>
                {s.recentTicks.slice(0, 3).map((t) => (
                  <Tick key={t.tickAt} tick={t} timeZone={s.timeZone} />
                ))}
              </ul>
            ),
        },
        { header: "", cell: (s) => <ScheduleActions id={s.id} name={s.name} paused={s.paused} /> },
      ]}
    />
  );
}
