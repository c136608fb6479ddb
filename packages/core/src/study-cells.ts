// A study's cells (studies.cells): one per target x workload, targets outer and
// workloads inner, as the study input lists them; and the planned run order
// (studies.planned_order): cell indices, a round after another.
import { z } from "zod";

export const studyCellSchema = z.object({
  targetId: z.string(),
  /** The target's name when the study was made. */
  target: z.string(),
  workloadId: z.string(),
  workload: z.string(),
});
export type StudyCell = z.infer<typeof studyCellSchema>;
export const studyCellsSchema = z.array(studyCellSchema);

export const plannedOrderSchema = z.array(z.number().int().min(0));
