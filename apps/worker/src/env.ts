// The worker's only reader of process.env, validated at boot.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseProcessEnv, sharedEnvSchema } from "@opsbench/core";
import { z } from "zod";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { k6BuildInfo } from "../k6-build/build.mjs";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

const workerEnvSchema = sharedEnvSchema.pick({ DATABASE_URL: true, REDIS_URL: true, OPSBENCH_SECRET_KEY: true }).extend({
  /** An AWS API stand-in (moto on loopback) for every AWS call; only from here, never from a request or a spec. */
  OPSBENCH_AWS_ENDPOINT_URL: z.url().optional(),
  /** A Google Cloud API stand-in (the tests' fake) for every Google Cloud call; only from here. */
  OPSBENCH_GCP_ENDPOINT_URL: z.url().optional(),
  /** Path to the k6 binary built with the opsbench output (see k6-build/build.mjs). */
  OPSBENCH_K6: z.string().default(() => (k6BuildInfo() as { binary: string }).binary),
  OPSBENCH_BENCHAPPS_DIR: z.string().default(path.join(repoRoot, "benchapps")),
  OPSBENCH_WORK_DIR: z.string().default(path.join(repoRoot, ".data/runs")),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** 1: where the k6 sandbox cannot be made, run k6 without it (such runs are flagged) instead of refusing (docs/security.md). */
  OPSBENCH_ALLOW_UNSANDBOXED_SCRIPTS: z
    .enum(["0", "1", "false", "true"])
    .default("0")
    .transform((v) => v === "1" || v === "true"),
  /** More address ranges k6 must never reach, comma-separated CIDRs (e.g. your office network). */
  OPSBENCH_K6_BLOCKED_RANGES: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((r) => r.trim())
        .filter(Boolean),
    ),
  /** The hard stop: k6 is stopped this long after its planned duration (covers k6's default setup and teardown timeouts). */
  OPSBENCH_K6_GRACE_SECONDS: z.coerce.number().int().min(0).default(120),
  /** No load test runs longer than this, whatever it plans (default one day). */
  OPSBENCH_MAX_LOAD_SECONDS: z.coerce.number().int().min(1).default(86_400),
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
