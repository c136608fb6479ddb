// The web app's only reader of process.env, validated once when the server boots (instrumentation.ts).
import { parseProcessEnv, sharedEnvSchema } from "@opsbench/core";

const webEnvSchema = sharedEnvSchema.pick({ DATABASE_URL: true, REDIS_URL: true, OPSBENCH_NEXT_DIST_DIR: true });

export const env = parseProcessEnv(webEnvSchema, process.env, "web");
export type WebEnv = typeof env;
