import type { RunSummary } from "@opsbench/core";
import type { WorkspaceScope } from "@opsbench/db";

type RunRow = Awaited<ReturnType<WorkspaceScope["runs"]["list"]>>[number];

export interface RunListItem {
  id: string;
  status: string;
  studyId: string | null;
  repetition: number;
  /** Null for runs imported from k6 result files. */
  target: { name: string; kind: string } | null;
  workload: { name: string } | null;
  name: string | null;
  source: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  /** Set when the run's analysis has finished. */
  summary: RunSummary | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toRunListItem(r: RunRow): RunListItem {
  return {
    id: r.id,
    status: r.status,
    studyId: r.studyId,
    repetition: r.repetition,
    target: r.target,
    workload: r.workload,
    name: r.name,
    source: r.source,
    createdAt: r.createdAt.toISOString(),
    startedAt: iso(r.startedAt),
    finishedAt: iso(r.finishedAt),
    error: r.error,
    summary: r.summary,
  };
}
