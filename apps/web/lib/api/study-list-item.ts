import { runStatusCounts, type RunStatusCounts } from "@opsbench/core";
import type { WorkspaceScope } from "@opsbench/db";

type StudyRow = Awaited<ReturnType<WorkspaceScope["studies"]["list"]>>[number];

/** A study in the list (GET /api/v1/studies, the /studies page). */
export interface StudyListItem {
  id: string;
  name: string;
  status: string;
  order: string;
  seed: number | null;
  repetitions: number;
  /** Targets x workloads. */
  cells: number;
  runs: RunStatusCounts;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toStudyListItem(s: StudyRow): StudyListItem {
  return {
    id: s.id,
    name: s.name,
    status: s.status,
    order: s.runOrder,
    seed: s.seed,
    repetitions: s.repetitions,
    cells: s.cells.length,
    runs: runStatusCounts(s.runs),
    createdAt: s.createdAt.toISOString(),
    startedAt: iso(s.startedAt),
    finishedAt: iso(s.finishedAt),
  };
}
