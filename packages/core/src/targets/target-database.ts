// A database a target's app gets from opsbench, made for the deployment and gone with it: on a kubernetes
// target, a Postgres deployed into the run's namespace; on a local target, a database and role of its own on
// the Postgres opsbench is given for apps (docs/local-engine.md). Either way its URL reaches the app in `urlEnv`.
import { z } from "zod";
import { targetEnvNameProblem } from "./target-env";

export const appDatabaseSpec = z
  .object({
    engine: z.literal("postgres"),
    urlEnv: z
      .string()
      .superRefine((name, ctx) => {
        const problem = targetEnvNameProblem(name);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .default("DATABASE_URL"),
  })
  .strict();

export type AppDatabaseSpec = z.infer<typeof appDatabaseSpec>;

/** The spec's env may not set the variable opsbench puts the database's URL in. */
export function appDatabaseEnvIssue(s: { database?: AppDatabaseSpec; env: Record<string, string> }, ctx: z.RefinementCtx): void {
  if (s.database && s.env[s.database.urlEnv] !== undefined)
    ctx.addIssue({
      code: "custom",
      path: ["env", s.database.urlEnv],
      message: `${s.database.urlEnv} is the database's URL (database.urlEnv): opsbench sets it`,
    });
}
