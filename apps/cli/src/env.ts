// The CLI's only reader of process.env.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseProcessEnv, sharedEnvSchema } from "@opsbench/core";
import { resolveLocalEnv, withSecretFiles } from "@opsbench/core/local-services";
import { z } from "zod";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

const cliEnvSchema = sharedEnvSchema.extend({
  /** The unix socket of the k6 runner the CLI's worker uses (started beside it when none answers there). */
  OPSBENCH_RUNNER_SOCKET: z.string().default(path.join(repoRoot, ".data/runner/runner.sock")),
  /** The runner's host id in the load lock (default: the machine's host name). */
  OPSBENCH_RUNNER_HOST_ID: z.string().min(1).optional(),
});

export type CliEnv = z.input<typeof cliEnvSchema> & z.infer<typeof sharedEnvSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): CliEnv {
  // Secrets from their *_FILE; no DATABASE_URL / REDIS_URL: the local Postgres and Redis on OPSBENCH_PG_PORT /
  // OPSBENCH_REDIS_PORT, with their passwords (scripts/local-services.mjs made them).
  return parseProcessEnv(cliEnvSchema, resolveLocalEnv(source, repoRoot), "opsbench");
}

/** The environment handed to the processes the CLI starts (worker, web). */
export function childEnv(env: CliEnv): NodeJS.ProcessEnv {
  return {
    // Secrets read from their *_FILE already: a child given both VAR and VAR_FILE would refuse to start.
    ...withSecretFiles(process.env),
    DATABASE_URL: env.DATABASE_URL,
    REDIS_URL: env.REDIS_URL,
    OPSBENCH_NEXT_DIST_DIR: env.OPSBENCH_NEXT_DIST_DIR,
    NEXT_TELEMETRY_DISABLED: "1",
    // The web app the CLI starts listens on 127.0.0.1 only: one person's laptop, no sign-in unless asked for.
    OPSBENCH_AUTH: env.OPSBENCH_AUTH ?? "off",
    // Both need the same key: the web app seals credentials, the worker opens them.
    OPSBENCH_SECRET_KEY: env.OPSBENCH_SECRET_KEY,
    OPSBENCH_RUNNER_SOCKET: runnerSocket(env),
    // The worker refuses load to the web app's port (and its ingest endpoint): it must know which one it is.
    ...(env.OPSBENCH_WEB_PORT ? { OPSBENCH_WEB_PORT: String(env.OPSBENCH_WEB_PORT) } : {}),
  };
}

export const runnerSocket = (env: CliEnv) => env.OPSBENCH_RUNNER_SOCKET ?? path.join(repoRoot, ".data/runner/runner.sock");

/** What the k6 runner may see: a process's basics and its own settings, none of opsbench's secrets (apps/runner/src/env.ts). */
const RUNNER_VARIABLES = [
  "PATH",
  "HOME",
  "LANG",
  "TZ",
  "TMPDIR",
  "LOG_LEVEL",
  "OPSBENCH_ENGINE",
  "OPSBENCH_K6_BINARY",
  "OPSBENCH_WORK_DIR",
  "OPSBENCH_ALLOW_UNSANDBOXED_SCRIPTS",
  "OPSBENCH_K6_BLOCKED_RANGES",
  "OPSBENCH_K6_MEMORY_MB",
  "OPSBENCH_K6_INSPECT_MEMORY_MB",
  "OPSBENCH_K6_MAX_THREADS",
  // Where Node keeps compiled code between starts (a cache folder, no secret): the tests set it.
  "NODE_COMPILE_CACHE",
] as const;

export function runnerEnv(env: CliEnv): NodeJS.ProcessEnv {
  return {
    NODE_ENV: process.env.NODE_ENV,
    ...Object.fromEntries(RUNNER_VARIABLES.flatMap((k) => (process.env[k] ? [[k, process.env[k] as string]] : []))),
    OPSBENCH_RUNNER_SOCKET: runnerSocket(env),
    ...(env.OPSBENCH_RUNNER_HOST_ID ? { OPSBENCH_RUNNER_HOST_ID: env.OPSBENCH_RUNNER_HOST_ID } : {}),
  };
}

export { loadRemote } from "./remote-env";
