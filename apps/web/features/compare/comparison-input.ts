// What a comparison is asked for: groups of run ids (each group one target x
// workload, or any runs the user put together), or every cell of a study.
// Shared by the API (body and query) and the pages (query), so both refuse the same things.
import { z } from "zod";

export const MAX_GROUPS = 12;
export const MAX_RUNS = 200;

const runId = z.uuid({ message: "not a run id (expected a UUID)" });

export const comparisonGroupInput = z
  .object({
    label: z.string().trim().min(1).max(80).optional(),
    runIds: z.array(runId).min(1, { message: "a group needs at least one run" }).max(MAX_RUNS),
  })
  .strict();

/** Judge runs with validity flags that would leave them out of the verdicts (partial, dropped iterations, ...) too. */
const includeFlagged = z.boolean({ message: "includeFlagged: expected true or false" }).optional();

export const comparisonGroupsInput = z
  .object({
    groups: z.array(comparisonGroupInput).min(1, { message: "give at least one group" }).max(MAX_GROUPS),
    includeFlagged,
  })
  .strict()
  .superRefine((v, ctx) => {
    const seen = new Map<string, string>();
    for (const [gi, g] of v.groups.entries())
      for (const [ri, id] of g.runIds.entries()) {
        const where = `groups.${gi}.runIds.${ri}`;
        if (seen.has(id))
          ctx.addIssue({ code: "custom", path: ["groups", gi, "runIds", ri], message: `run ${id} is already in ${seen.get(id)}` });
        else seen.set(id, where);
      }
    const total = v.groups.reduce((s, g) => s + g.runIds.length, 0);
    if (total > MAX_RUNS)
      ctx.addIssue({ code: "custom", path: ["groups"], message: `${total} runs; at most ${MAX_RUNS} in one comparison` });
  });

export const comparisonStudyInput = z.object({ studyId: z.uuid({ message: "not a study id (expected a UUID)" }), includeFlagged }).strict();

export type ComparisonInput = z.infer<typeof comparisonGroupsInput> | z.infer<typeof comparisonStudyInput>;

/**
 * The schema for a raw input: `{ studyId }` or `{ groups }`. Chosen by key rather
 * than with a zod union, so a mistake is reported at its own path, not as "invalid union".
 */
export const comparisonInputSchema = (raw: unknown) =>
  typeof raw === "object" && raw !== null && "studyId" in raw ? comparisonStudyInput : comparisonGroupsInput;
export type ComparisonGroupRequest = z.infer<typeof comparisonGroupInput>;
