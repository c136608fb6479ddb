// The worker's settings as its parts use them, from its validated environment and its command line: pure, no
// client is opened here (services.ts opens them). `--role load` (opsbench worker --role load) wins over
// OPSBENCH_WORKER_ROLE.
import { opsbenchServicePorts } from "@opsbench/core";
import type { MaintenanceJob } from "@opsbench/jobs";
import type { WorkerEnv } from "./env";

export type WorkerRole = "all" | "load";

export interface WorkerConfig {
  env: WorkerEnv;
  /** "all": runs, studies, checks and load segments; "load": a generator-only worker (load segments). */
  role: WorkerRole;
  /** Credentials targets name are opened with this key; cloud API stand-ins come from here only, never from a request. */
  credentials: { secretKey: string | undefined; endpoints: { aws: string | undefined; gcp: string | undefined } };
  /** Host names of the worker's Postgres and Redis, blocked for k6. */
  blockHosts: string[];
  /** The ports of opsbench's own services: no target or kubeconfig server may be on one. */
  blockPorts: ReturnType<typeof opsbenchServicePorts>;
  /** The installation's periodic passes (maintenance.ts). */
  maintenanceEveryMs: Record<MaintenanceJob, number>;
}

export function workerConfig(env: WorkerEnv, argv: readonly string[] = []): WorkerConfig {
  const roleArg = argv.indexOf("--role");
  const role = roleArg >= 0 ? argv[roleArg + 1] : env.OPSBENCH_WORKER_ROLE;
  if (role !== "all" && role !== "load") throw new Error(`--role must be "all" or "load", not ${JSON.stringify(role)}`);
  return {
    env,
    role,
    credentials: {
      secretKey: env.OPSBENCH_SECRET_KEY,
      endpoints: { aws: env.OPSBENCH_AWS_ENDPOINT_URL, gcp: env.OPSBENCH_GCP_ENDPOINT_URL },
    },
    blockHosts: [new URL(env.DATABASE_URL).hostname, new URL(env.REDIS_URL).hostname],
    blockPorts: opsbenchServicePorts({
      databaseUrl: env.DATABASE_URL,
      redisUrl: env.REDIS_URL,
      webPort: env.OPSBENCH_WEB_PORT,
      extra: env.OPSBENCH_LOAD_BLOCKED_PORTS,
    }),
    maintenanceEveryMs: {
      reconcile: env.OPSBENCH_RECONCILE_SECONDS * 1000,
      reap: env.OPSBENCH_REAPER_SECONDS * 1000,
      "retention-sweep": env.OPSBENCH_RETENTION_SWEEP_SECONDS * 1000,
    },
  };
}
