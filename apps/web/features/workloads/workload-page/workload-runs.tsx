import Link from "next/link";
import { EmptyState } from "@/components/empty-state";
import { ListTable } from "@/components/list-table";
import { StatusBadge } from "@/components/status-badge";
import type { RunListItem } from "@/lib/api/run-list-item";
import { fmtCount, fmtMs, fmtTime } from "@/lib/format";

export interface WorkloadRun extends RunListItem {
  /** The run used a spec other than the workload's current one (edited since). */
  earlierSpec: boolean;
}

/** The workload's newest runs, each linked to its page (and its study's). */
export function WorkloadRuns({ runs, workloadName }: { runs: WorkloadRun[]; workloadName: string }) {
  if (runs.length === 0)
    return (
      <EmptyState testId="workload-runs-empty">
        No runs of {workloadName} yet: start one with “Start run” on the home page, in a study, or with{" "}
        <code>opsbench run TARGET {workloadName}</code>.
      </EmptyState>
    );
  return (
    <ListTable
      testId="workload-runs"
      rows={runs}
      rowKey={(r) => r.id}
      rowData={(r) => ({ "data-testid": "workload-run-row", "data-run-id": r.id })}
      columns={[
        { header: "Status", cell: (r) => <StatusBadge status={r.status} /> },
        { header: "Target", className: "font-mono", cell: (r) => r.target?.name ?? "—" },
        {
          header: "Study",
          cell: (r) =>
            r.studyId ? (
              <Link href={`/studies/${r.studyId}`} className="text-blue-600 hover:underline">
                repetition {r.repetition}
              </Link>
            ) : (
              "—"
            ),
        },
        { header: "Created (UTC)", className: "whitespace-nowrap font-mono text-zinc-600", cell: (r) => fmtTime(r.createdAt) },
        { header: "Requests", right: true, className: "font-mono tabular-nums", cell: (r) => fmtCount(r.summary?.requests) },
        { header: "p95 (ms)", right: true, className: "font-mono tabular-nums", cell: (r) => fmtMs(r.summary?.latencyMs.p95) },
        {
          header: "Spec",
          className: "text-zinc-600",
          cell: (r) => (r.earlierSpec ? <span title="the workload was edited after this run">earlier version</span> : "current"),
        },
        {
          header: "Run",
          cell: (r) => (
            <Link href={`/runs/${r.id}`} className="font-mono text-blue-600 hover:underline">
              {r.id.slice(0, 8)}
            </Link>
          ),
        },
      ]}
    />
  );
}
