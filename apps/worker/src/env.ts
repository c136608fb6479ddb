// The worker's only reader of process.env, validated at boot.
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  loadAllowedHostsSetting,
  loadBlockedPortsSetting,
  loadPrivateRangesSetting,
  parseProcessEnv,
  sharedEnvSchema,
} from "@opsbench/core";
import { resolveLocalEnv } from "@opsbench/core/local-services";
import { z } from "zod";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { helmBuildInfo } from "../helm-build/build.mjs";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

const workerEnvSchema = sharedEnvSchema
  .pick({ DATABASE_URL: true, REDIS_URL: true, OPSBENCH_SECRET_KEY: true, OPSBENCH_WEB_PORT: true, OPSBENCH_METRICS_TOKEN: true })
  .extend({
    /**
     * The port of the worker's metrics and health listener (GET /metrics, GET /health); unset: no listener. 0: any
     * free port (tests). Off by default: a worker opens no port nobody asked for (docs/self-hosting.md "Metrics").
     */
    OPSBENCH_WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /** The address it listens on: loopback by default; 0.0.0.0 for a Prometheus in another container (with OPSBENCH_METRICS_TOKEN). */
    OPSBENCH_WORKER_METRICS_HOST: z.string().min(1).default("127.0.0.1"),
    /** The same listener on a unix socket (compose's healthcheck probes it: packages/jobs/health-probe.mjs); unset: none. */
    OPSBENCH_WORKER_HEALTH_SOCKET: z.string().min(1).optional(),
    /** OpenTelemetry traces (tracing.ts), by the standard variables: off unless an OTLP/HTTP endpoint is named. */
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
    OTEL_SERVICE_NAME: z.string().min(1).optional(),
    OTEL_TRACES_EXPORTER: z.string().min(1).optional(),
    OTEL_SDK_DISABLED: z.string().min(1).optional(),
    /** An AWS API stand-in (moto on loopback) for every AWS call; only from here, never from a request or a spec. */
    OPSBENCH_AWS_ENDPOINT_URL: z.url().optional(),
    /** A Google Cloud API stand-in (the tests' fake) for every Google Cloud call; only from here. */
    OPSBENCH_GCP_ENDPOINT_URL: z.url().optional(),
    /** The unix socket of this host's k6 runner (apps/runner), which runs every k6 and holds no secret. */
    OPSBENCH_RUNNER_SOCKET: z.string().default(path.join(repoRoot, ".data/runner/runner.sock")),
    OPSBENCH_BENCHAPPS_DIR: z.string().default(path.join(repoRoot, "benchapps")),
    OPSBENCH_WORK_DIR: z.string().default(path.join(repoRoot, ".data/runs")),
    /**
     * A Postgres URL whose role may create roles and databases, where local targets' `database`s are made (a role
     * and a database per deployment, dropped at teardown). Default: DATABASE_URL (the one-machine install's is).
     */
    OPSBENCH_APP_DATABASE_URL: z.url().optional(),
    /** The pinned helm that renders kubernetes targets' charts (apps/worker/helm-build/build.mjs; the image's /usr/local/bin/helm). */
    OPSBENCH_HELM: z.string().default(() => (helmBuildInfo() as { binary: string }).binary),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    /**
     * Hosts load may go to although opsbench did not start them (an `endpoint` target, a cloud kind's address or
     * endpointUrl): comma-separated host names, *.domain, IP addresses or CIDRs, or host:port / host:first-last.
     * A loopback address only as host:port (docs/security.md).
     */
    OPSBENCH_LOAD_ALLOWED_HOSTS: loadAllowedHostsSetting,
    /**
     * More `host:port` pairs load must never reach, beside opsbench's own (DATABASE_URL's, REDIS_URL's and the web
     * app's 127.0.0.1:OPSBENCH_WEB_PORT), which are always refused (docs/security.md).
     */
    OPSBENCH_LOAD_BLOCKED_PORTS: loadBlockedPortsSetting,
    /**
     * Private or shared ranges (10/8, 172.16/12, 192.168/16, 100.64/10, 198.18/15, fc00::/7) where a proof of ownership
     * or a platform's answer may admit an address: comma-separated CIDRs; empty (the default): only an allowlist entry
     * admits an address there (docs/security.md "Egress policy").
     */
    OPSBENCH_LOAD_PRIVATE_RANGES: loadPrivateRangesSetting,
    /**
     * The name servers the worker asks for a remote target's address (resolved once and pinned for the run) and its
     * ownership TXT record: comma-separated `ip` or `ip:port`; empty: the system's resolver (docs/security.md).
     */
    OPSBENCH_DNS_SERVERS: z
      .string()
      .default("")
      .transform((v, ctx) => {
        const servers = v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
        const bad = servers.find((s) => !/^(\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?|\[[0-9a-fA-F:]+\](:\d{1,5})?|[0-9a-fA-F:]+)$/.test(s));
        if (bad) ctx.addIssue({ code: "custom", message: `"${bad}" is not a name server's address (ip or ip:port, [v6]:port)` });
        return servers;
      }),
    /**
     * The address users reach the web app at (e.g. https://bench.example.com): notifications link to it (a run's page);
     * unset: they carry no link (docs/notifications.md).
     */
    OPSBENCH_PUBLIC_URL: z.url().optional(),
    /** The first retry's delay of a notification not delivered; each later one waits twice as long (5 attempts in all). */
    OPSBENCH_NOTIFICATION_RETRY_BASE_MS: z.coerce.number().int().min(1).default(10_000),
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
     * test at a time per host). Default: the host id of the runner it uses (apps/runner), so workers sharing a
     * runner (compose's `--scale worker=N`) share the lock without configuration.
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
  // Secrets from their *_FILE; no DATABASE_URL / REDIS_URL: the local Postgres and Redis on the ports `source`
  // names, with their passwords (the one-machine install).
  return parseProcessEnv(workerEnvSchema, resolveLocalEnv(source, repoRoot), "worker");
}
