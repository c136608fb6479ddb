// The worker's only reader of process.env, validated at boot.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseProcessEnv, sharedEnvSchema } from "@opsbench/core";
import { z } from "zod";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { k6BuildInfo } from "../k6-build/build.mjs";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

const workerEnvSchema = sharedEnvSchema.pick({ DATABASE_URL: true, REDIS_URL: true }).extend({
  /** Path to the k6 binary built with the opsbench output (see k6-build/build.mjs). */
  OPSBENCH_K6: z.string().default(() => (k6BuildInfo() as { binary: string }).binary),
  OPSBENCH_BENCHAPPS_DIR: z.string().default(path.join(repoRoot, "benchapps")),
  OPSBENCH_WORK_DIR: z.string().default(path.join(repoRoot, ".data/runs")),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export type WorkerEnv = z.infer<typeof workerEnvSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): WorkerEnv {
  return parseProcessEnv(workerEnvSchema, source, "worker");
}

/** The variables a child process (k6) needs to run at all; nothing of the worker's own settings. */
const SYSTEM_VARIABLES = ["PATH", "HOME", "TMPDIR", "LANG", "TZ", "SSL_CERT_FILE", "SSL_CERT_DIR"] as const;

/**
 * The environment k6 starts with: only what a process needs to run, never the
 * worker's own settings (user scripts can read every variable through __ENV,
 * and DATABASE_URL or REDIS_URL may carry credentials).
 */
export function systemEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(SYSTEM_VARIABLES.flatMap((k) => (source[k] ? [[k, source[k]]] : [])));
}
