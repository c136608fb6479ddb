// The worker's only reader of process.env, validated at boot.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadAllowedHostsSetting, parseProcessEnv, sharedEnvSchema } from "@opsbench/core";
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
  /**
   * Hosts load may go to although opsbench did not start them (an `endpoint` target, a cloud kind's address or
   * endpointUrl): comma-separated host names, *.domain, IP addresses or CIDRs. Loopback always may (docs/security.md).
   */
  OPSBENCH_LOAD_ALLOWED_HOSTS: loadAllowedHostsSetting,
  /** The hard stop: k6 is stopped this long after its planned duration (covers k6's default setup and teardown timeouts). */
  OPSBENCH_K6_GRACE_SECONDS: z.coerce.number().int().min(0).default(120),
  /**
   * "all": runs, studies, script checks and load segments; "load": a generator-only worker that takes load segments
   * of runs split over several generators (docs/generators.md). `opsbench worker --role load` sets it too.
   */
  OPSBENCH_WORKER_ROLE: z.enum(["all", "load"]).default("all"),
  /** How long a run split over generators waits for all of them to have k6 up and paused before it fails. */
  OPSBENCH_SEGMENT_READY_SECONDS: z.coerce.number().int().min(1).default(120),
  /** 1: also keep k6's raw JSON output (every sample) of each load segment, in <work dir>/k6-samples/<run>-segment-<i>.json, to check opsbench's numbers. */
  OPSBENCH_K6_KEEP_SAMPLES: z
    .enum(["0", "1", "false", "true"])
    .default("0")
    .transform((v) => v === "1" || v === "true"),
  /** No load test runs longer than this, whatever it plans (default one day). */
  OPSBENCH_MAX_LOAD_SECONDS: z.coerce.number().int().min(1).default(86_400),
  /** How often the reconciler looks for runs and studies nothing executes (docs/faults.md); one worker of the installation does each pass. */
  OPSBENCH_RECONCILE_SECONDS: z.coerce.number().int().min(1).default(60),
  /** How often the reaper looks for platform resources of finished runs (one worker of the installation). */
  OPSBENCH_REAPER_SECONDS: z.coerce.number().int().min(1).default(300),
  /** How often raw series past a workspace's retention period are pruned (one worker of the installation). */
  OPSBENCH_RETENTION_SWEEP_SECONDS: z.coerce.number().int().min(1).default(3600),
  /**
   * The identity of the machine this worker's load comes from: every worker on it shares one load lock (one load
   * test at a time per host). Default: the host name. Containers on one machine have host names of their own,
   * so give them all the same value.
   */
  OPSBENCH_LOAD_HOST: z.string().min(1).optional(),
  /** The load lock's lease: a worker killed while holding it frees the host within this long. */
  OPSBENCH_LOAD_LEASE_SECONDS: z.coerce.number().int().min(1).default(30),
  /**
   * SIGTERM: how long the worker may take to stop k6, keep the results, tear down and mark the run
   * ABORTED before it exits anyway (keep it under the container's stop_grace_period, 90 s in compose).
   */
  OPSBENCH_SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(1).default(75),
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
