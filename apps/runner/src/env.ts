// The runner's only reader of process.env, validated at boot. The runner executes users'
// scripts, so it refuses to start holding any of opsbench's secrets (docs/security.md).
import { readlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseProcessEnv } from "@opsbench/core";
import { SECRET_VARIABLES as SHARED_SECRET_VARIABLES } from "@opsbench/core/local-services";
import { z } from "zod";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { engineBuildInfo } from "../../../engine/build.mjs";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The default socket of a one-machine install (the CLI starts the runner and the worker with it). */
export const DEFAULT_RUNNER_SOCKET = path.join(repoRoot, ".data/runner/runner.sock");

const flag = z
  .enum(["0", "1", "false", "true"])
  .default("0")
  .transform((v) => v === "1" || v === "true");

const runnerEnvSchema = z.object({
  /** The unix socket the worker reaches the runner on (nothing else does). */
  OPSBENCH_RUNNER_SOCKET: z.string().default(DEFAULT_RUNNER_SOCKET),
  /** A numeric group that may use the socket too (the worker's, when it runs as another user); else only this user. */
  OPSBENCH_RUNNER_SOCKET_GID: z.coerce.number().int().min(0).optional(),
  /**
   * The name of this host in the load lock every worker using this runner shares, and for load generators the host a
   * loopback target is on (default: the host name, plus the network namespace when the runner is not in the
   * machine's own: two namespaces of one machine are two hosts to a loopback target).
   */
  OPSBENCH_RUNNER_HOST_ID: z
    .string()
    .min(1)
    .default(() => defaultHostId()),
  /** Path to opsbench-engine, the load engine that runs k6 scripts (built by engine/build.mjs). */
  OPSBENCH_ENGINE: z.string().default(() => (engineBuildInfo() as { binary: string }).binary),
  /**
   * A stock k6 binary the admin brings (unset: opsbench-engine runs the scripts). It runs in the same sandbox; its
   * `--out json=` is read from a FIFO and folded into the engine's per-second lines (docs/engine.md).
   */
  OPSBENCH_K6_BINARY: z.string().min(1).optional(),
  /** Where each k6 gets its folder (its script and summary), removed after the run. */
  OPSBENCH_WORK_DIR: z.string().default(path.join(repoRoot, ".data/runs")),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** 1: where the k6 sandbox cannot be made, run k6 without it (such runs are flagged) instead of refusing. */
  OPSBENCH_ALLOW_UNSANDBOXED_SCRIPTS: flag,
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
  /** Address space each k6 run may use, MB (RLIMIT_AS through prlimit; k6 needs about 800 MB of it to start). */
  OPSBENCH_K6_MEMORY_MB: z.coerce.number().int().min(1024).default(4096),
  /** Address space each k6 inspect (script validation, the run's own check) may use, MB. */
  OPSBENCH_K6_INSPECT_MEMORY_MB: z.coerce.number().int().min(1024).default(1536),
  /** OS threads a k6 may start (Go's thread limit in opsbench-engine, handed over as OPSBENCH_ENGINE_MAX_THREADS; RLIMIT_NPROC too, which binds non-root runners). */
  OPSBENCH_K6_MAX_THREADS: z.coerce.number().int().min(50).default(2000),
});

export type RunnerEnv = z.infer<typeof runnerEnvSchema>;

/**
 * The host name, with `/netns-<inode>` unless this process is provably in the network namespace of process 1 (whose link
 * only root, or its user, may read): a runner in a namespace of its own is a host of its own.
 */
export function defaultHostId(): string {
  let own: string;
  try {
    own = readlinkSync("/proc/self/ns/net");
  } catch {
    return os.hostname();
  }
  let first: string | null = null;
  try {
    first = readlinkSync("/proc/1/ns/net");
  } catch {
    // not ours to read
  }
  return own === first ? os.hostname() : `${os.hostname()}/netns-${own.replace(/\D/g, "")}`;
}

/** Variables that carry opsbench's secrets or reach its stores: never in the runner's environment. */
export const SECRET_VARIABLES = [
  "OPSBENCH_SECRET_KEY",
  "DATABASE_URL",
  "REDIS_URL",
  "POSTGRES_PASSWORD",
  "OPSBENCH_DB_PASSWORD",
  "OPSBENCH_APP_DB_PASSWORD",
  "REDIS_PASSWORD",
  "BETTER_AUTH_SECRET",
] as const;

/** Every secret variable of any opsbench process, and each one's `_FILE` form (a path to the secret is as bad). */
const REFUSED = [...new Set([...SECRET_VARIABLES, ...SHARED_SECRET_VARIABLES])].flatMap((k) => [k, `${k}_FILE`]);

export function loadEnv(source: NodeJS.ProcessEnv = process.env): RunnerEnv {
  const held = REFUSED.filter((k) => source[k]);
  if (held.length)
    throw new Error(
      `the runner executes users' k6 scripts and must hold no secret, but its environment has ${held.join(", ")}: start it without ${held.length > 1 ? "them" : "it"}`,
    );
  return parseProcessEnv(runnerEnvSchema, source, "runner");
}

/** The variables a child process (k6) needs to run at all; nothing of the runner's own settings. */
const SYSTEM_VARIABLES = ["PATH", "HOME", "TMPDIR", "LANG", "TZ", "SSL_CERT_FILE", "SSL_CERT_DIR"] as const;

/** The environment an unsandboxed k6 starts with: only what a process needs to run (scripts read every variable through __ENV). */
export function systemEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(SYSTEM_VARIABLES.flatMap((k) => (source[k] ? [[k, source[k]]] : [])));
}
