import { flagsOfRun, type RecordedProvenance, type RunSummary, type ValidityFlag } from "@opsbench/core";
import type { WorkspaceScope } from "@opsbench/db";
import { type LifecycleTimes, lifecycleTimes } from "./lifecycle-times";

type RunRow = Awaited<ReturnType<WorkspaceScope["runs"]["list"]>>[number];

export interface RunListItem extends LifecycleTimes {
  id: string;
  status: string;
  studyId: string | null;
  repetition: number;
  /** Null for runs imported from k6 result files. */
  target: { name: string; kind: string } | null;
  workload: { name: string } | null;
  name: string | null;
  source: string;
  error: string | null;
  /** Set when the run's analysis has finished. */
  summary: RunSummary | null;
  /** Its validity flags, stored and implied by its summary (core's flagsOfRun), as the run page shows them. */
  flags: ValidityFlag[];
  /** The code and build it is of (null fields where unset, labels {}). */
  provenance: RecordedProvenance;
}

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
    ...lifecycleTimes(r),
    error: r.error,
    summary: r.summary,
    flags: flagsOfRun(r),
    provenance: r.provenance,
  };
}
