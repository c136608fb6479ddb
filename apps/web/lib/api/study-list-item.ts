import { runStatusCounts, type RunStatusCounts } from "@opsbench/core";
import type { WorkspaceScope } from "@opsbench/db";
import { type LifecycleTimes, lifecycleTimes } from "./lifecycle-times";

type StudyRow = Awaited<ReturnType<WorkspaceScope["studies"]["list"]>>[number];

/** A study in the list (GET /api/v1/studies, the /studies page). */
export interface StudyListItem extends LifecycleTimes {
  id: string;
  name: string;
  status: string;
  order: string;
  seed: number | null;
  repetitions: number;
  /** Targets x workloads. */
  cells: number;
  runs: RunStatusCounts;
}

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
    ...lifecycleTimes(s),
  };
}
