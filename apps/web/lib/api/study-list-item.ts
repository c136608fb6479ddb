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
  runs: { total: number; finished: number; succeeded: number; failed: number; aborted: number };
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toStudyListItem(s: StudyRow): StudyListItem {
  const count = (status: string) => s.runs.filter((r) => r.status === status).length;
  const succeeded = count("SUCCEEDED");
  const failed = count("FAILED");
  const aborted = count("ABORTED");
  return {
    id: s.id,
    name: s.name,
    status: s.status,
    order: s.runOrder,
    seed: s.seed,
    repetitions: s.repetitions,
    cells: Array.isArray(s.cells) ? s.cells.length : 0,
    runs: { total: s.runs.length, finished: succeeded + failed + aborted, succeeded, failed, aborted },
    createdAt: s.createdAt.toISOString(),
    startedAt: iso(s.startedAt),
    finishedAt: iso(s.finishedAt),
  };
}
