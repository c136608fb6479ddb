// The web app's only reader of process.env, validated once when the server boots (instrumentation.ts).
import { parseProcessEnv, sharedEnvSchema } from "@opsbench/core";
import { z } from "zod";

const webEnvSchema = sharedEnvSchema
  .pick({ DATABASE_URL: true, REDIS_URL: true, OPSBENCH_NEXT_DIST_DIR: true, OPSBENCH_SECRET_KEY: true })
  .extend({
    OPSBENCH_AUTH: sharedEnvSchema.shape.OPSBENCH_AUTH.unwrap().default("required"),
    /** Signs session cookies; without it a secret made once is kept in the database (instance_settings). */
    OPSBENCH_AUTH_SECRET: z.string().min(32, "at least 32 characters").optional(),
    /** The address users reach the app at (e.g. https://bench.example.com); inferred from each request when unset. */
    OPSBENCH_PUBLIC_URL: z.url().optional(),
  });

export const env = parseProcessEnv(webEnvSchema, process.env, "web");
export type WebEnv = typeof env;
