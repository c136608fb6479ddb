// The CLI's only reader of process.env.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseProcessEnv, sharedEnvSchema } from "@opsbench/core";
import type { z } from "zod";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

export type CliEnv = z.infer<typeof sharedEnvSchema>;

export function loadEnv(): CliEnv {
  return parseProcessEnv(sharedEnvSchema, process.env, "opsbench");
}

/** The environment handed to the processes the CLI starts (worker, web). */
export function childEnv(env: CliEnv): Record<string, string> {
  const inherited = Object.fromEntries(Object.entries(process.env).flatMap(([k, v]) => (v === undefined ? [] : [[k, v]])));
  return {
    ...inherited,
    DATABASE_URL: env.DATABASE_URL,
    REDIS_URL: env.REDIS_URL,
    OPSBENCH_NEXT_DIST_DIR: env.OPSBENCH_NEXT_DIST_DIR,
    NEXT_TELEMETRY_DISABLED: "1",
  };
}
