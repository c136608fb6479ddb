import { z } from "zod";

/** POST /api/v1/runs body: names of an existing target and workload. */
export const startRunInput = z
  .object({
    target: z.string().min(1),
    workload: z.string().min(1),
  })
  .strict();
export type StartRunInput = z.infer<typeof startRunInput>;
