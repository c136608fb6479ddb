// The local target kinds' specs (docs/local-engine.md): local-service (replicas, an HPA) and local-function (scale to
// zero), with their defaults filled in; and what every target's name may be.
import { z } from "zod";
import { resourceName } from "../names/resource-name";
import { costModelDocument } from "../cost/run-cost";
import { appDatabaseEnvIssue, appDatabaseSpec } from "./target-database";
import { targetEnv } from "./target-env";

/** The benchapps a local target can run (folders under benchapps/). */
export const LOCAL_APPS = [
  "apache",
  "cpu-loop/node-http",
  "cpu-loop/express",
  "cpu-loop/flask",
  "echo/go",
  "echo/node",
  "iot",
  "msd/poll",
  "msd/beps",
  "shop",
  "shop-restate",
] as const;

/** Replicas (local-service) or instances (local-function) one local target may run: study 001 pinned up to 50. */
export const LOCAL_MAX_REPLICAS = 64;

/** A target's name (the rule every named resource follows: resource-name.ts). */
export const targetName = resourceName;

// New fields are optional and their defaults are filled by serviceSettings() /
// functionSettings() below, so a stored spec keeps only what the user chose and
// typed literals elsewhere (demo fixtures, tests) stay valid.

const cores = z.number().positive().max(64);
const ms = (min: number, max: number) => z.number().int().min(min).max(max);

/** Per replica (local-service) or per instance (local-function); enforced with cgroups where the OS allows. */
export const localResources = z
  .object({
    /** Cores the replica asks for; the autoscaler's utilisation is measured against it (as an HPA against requests). Default 1. */
    cpuRequest: cores.optional(),
    /** Cores it may use at most (cgroup cpu.max / cfs quota). */
    cpuLimit: cores.optional(),
    /** Memory it may use at most (cgroup memory.max / limit_in_bytes), in MiB. */
    memoryLimitMb: z.number().int().min(16).max(1_048_576).optional(),
  })
  .strict();

/** The HPA's CPU rule (docs/local-engine.md); defaults are Kubernetes'. */
export const cpuAutoscalerSpec = z
  .object({
    /** Target average CPU utilisation, in % of cpuRequest. */
    targetCpuPercent: z.number().int().min(1).max(1000),
    /** How often the autoscaler measures and decides (HPA: 15 s). */
    syncPeriodMs: ms(100, 600_000).optional(),
    /** No change while |utilisation / target - 1| is within this (HPA: 0.1). */
    tolerance: z.number().min(0).max(1).optional(),
    /** Scale down only to the highest recommendation of this window (HPA: 300 s). */
    scaleDownStabilizationMs: ms(0, 3_600_000).optional(),
    /** Scale up only to the lowest recommendation of this window (HPA: 0, up at once). */
    scaleUpStabilizationMs: ms(0, 3_600_000).optional(),
  })
  .strict();

/** How services of a multi-service benchapp share processes (study 003's isolation domains). */
export const PLACEMENTS = ["co-located", "tiered", "isolated"] as const;
export type Placement = (typeof PLACEMENTS)[number];

export const localServiceSpec = z
  .object({
    app: z.enum(LOCAL_APPS),
    /** A fixed number of replicas (min = max). Give this or minReplicas/maxReplicas. */
    replicas: z.number().int().min(1).max(LOCAL_MAX_REPLICAS).optional(),
    minReplicas: z.number().int().min(1).max(LOCAL_MAX_REPLICAS).optional(),
    maxReplicas: z.number().int().min(1).max(LOCAL_MAX_REPLICAS).optional(),
    /** Scale between min and max on CPU, as an HPA does; without it the service runs minReplicas. */
    autoscaler: cpuAutoscalerSpec.optional(),
    resources: localResources.optional(),
    /** per-request: HTTP-aware, keep-alive requests spread over replicas (like an ALB); per-connection: TCP (like kube-proxy). Default per-request. */
    balancing: z.enum(["per-request", "per-connection"]).optional(),
    /** For multi-service benchapps: which services share a process. Default co-located. */
    placement: z.enum(PLACEMENTS).optional(),
    /** loopback: every process on 127.0.0.1; namespaces: each process in its own network namespace (root only). */
    network: z.enum(["loopback", "namespaces"]).optional(),
    /** Given to the benchapp's processes: safe names only, values never shown (target-env.ts). */
    env: targetEnv.default({}),
    /**
     * A Postgres database and role of the deployment's own (never opsbench's role), made before the first replica
     * starts and dropped at teardown; its URL goes to every process in `urlEnv` (the IoT app's IOT_DATABASE_URL).
     */
    database: appDatabaseSpec.optional(),
    /** How long each replica may take to answer its health check. */
    startTimeoutMs: z.number().int().min(100).max(120_000).default(10_000),
    /** What this deployment would cost for real: a cost model, or a price catalog reference (docs/cost.md). Replicas count as nodes. */
    costModel: costModelDocument.optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    appDatabaseEnvIssue(s, ctx);
    if (s.replicas !== undefined && (s.minReplicas !== undefined || s.maxReplicas !== undefined)) {
      ctx.addIssue({
        code: "custom",
        path: ["replicas"],
        message: "give either replicas (a fixed size) or minReplicas/maxReplicas, not both",
      });
    }
    if (s.minReplicas !== undefined && s.maxReplicas !== undefined && s.minReplicas > s.maxReplicas) {
      ctx.addIssue({
        code: "custom",
        path: ["minReplicas"],
        message: `minReplicas (${s.minReplicas}) is above maxReplicas (${s.maxReplicas})`,
      });
    }
    const r = s.resources;
    if (r?.cpuRequest !== undefined && r.cpuLimit !== undefined && r.cpuRequest > r.cpuLimit) {
      ctx.addIssue({ code: "custom", path: ["resources", "cpuRequest"], message: "cpuRequest is above cpuLimit" });
    }
  });
export type LocalServiceSpec = z.infer<typeof localServiceSpec>;

export interface ServiceSettings {
  minReplicas: number;
  maxReplicas: number;
  autoscaler: Required<z.infer<typeof cpuAutoscalerSpec>> | null;
  resources: { cpuRequest: number; cpuLimit: number | null; memoryLimitMb: number | null };
  balancing: "per-request" | "per-connection";
  placement: Placement;
  network: "loopback" | "namespaces";
}

/** A local-service spec with every default filled in. */
export function serviceSettings(spec: LocalServiceSpec): ServiceSettings {
  const min = spec.replicas ?? spec.minReplicas ?? 1;
  const max = spec.replicas ?? spec.maxReplicas ?? Math.max(min, spec.autoscaler ? 4 : min);
  const a = spec.autoscaler;
  return {
    minReplicas: min,
    maxReplicas: Math.max(min, max),
    autoscaler: a
      ? {
          targetCpuPercent: a.targetCpuPercent,
          syncPeriodMs: a.syncPeriodMs ?? 15_000,
          tolerance: a.tolerance ?? 0.1,
          scaleDownStabilizationMs: a.scaleDownStabilizationMs ?? 300_000,
          scaleUpStabilizationMs: a.scaleUpStabilizationMs ?? 0,
        }
      : null,
    resources: {
      cpuRequest: spec.resources?.cpuRequest ?? spec.resources?.cpuLimit ?? 1,
      cpuLimit: spec.resources?.cpuLimit ?? null,
      memoryLimitMb: spec.resources?.memoryLimitMb ?? null,
    },
    balancing: spec.balancing ?? "per-request",
    placement: spec.placement ?? "co-located",
    network: spec.network ?? "loopback",
  };
}

/** The serverless platforms local-function can imitate; each sets defaults (docs/local-engine.md). */
export const FUNCTION_PLATFORMS = ["lambda", "cloud-run", "openwhisk"] as const;
export type FunctionPlatform = (typeof FUNCTION_PLATFORMS)[number];

export const localFunctionSpec = z
  .object({
    app: z.enum(LOCAL_APPS),
    /** Whose defaults to take (concurrency, billing, queueing, idle timeout). Default cloud-run. */
    platform: z.enum(FUNCTION_PLATFORMS).optional(),
    /** What this deployment would cost for real: a pay-per-use model or a price catalog reference (docs/cost.md). */
    costModel: costModelDocument.optional(),
    /** Requests one instance serves at once (Lambda 1, Cloud Run 80 by default, up to 1000). */
    concurrency: z.number().int().min(1).max(1000).optional(),
    /** Instances kept warm even when idle (not counted as cold starts). Default 0: scale to zero. */
    minInstances: z.number().int().min(0).max(LOCAL_MAX_REPLICAS).optional(),
    maxInstances: z.number().int().min(1).max(LOCAL_MAX_REPLICAS).optional(),
    /** An instance idle this long is stopped. */
    idleTimeoutMs: ms(500, 3_600_000).optional(),
    /** How long a request may wait for a free slot when every instance is busy and none may start; then 429. */
    queueTimeoutMs: ms(0, 600_000).optional(),
    /** Requests that may wait at once; more are answered 429 at once. */
    maxQueue: z.number().int().min(0).max(100_000).optional(),
    /** Billed duration: each request's (per-request) or each instance's busy time (per-instance), rounded up to granularityMs, at least minimumMs. */
    billing: z
      .object({
        mode: z.enum(["per-request", "per-instance"]).optional(),
        granularityMs: ms(1, 60_000).optional(),
        minimumMs: ms(0, 60_000).optional(),
      })
      .strict()
      .optional(),
    resources: localResources.optional(),
    /** Given to the benchapp's processes: safe names only, values never shown (target-env.ts). */
    env: targetEnv.default({}),
    /** How long an instance may take to answer its health check before its waiting requests get 503. */
    startTimeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.minInstances !== undefined && s.maxInstances !== undefined && s.minInstances > s.maxInstances) {
      ctx.addIssue({
        code: "custom",
        path: ["minInstances"],
        message: `minInstances (${s.minInstances}) is above maxInstances (${s.maxInstances})`,
      });
    }
  });
export type LocalFunctionSpec = z.infer<typeof localFunctionSpec>;

export interface FunctionSettings {
  platform: FunctionPlatform;
  concurrency: number;
  minInstances: number;
  maxInstances: number;
  idleTimeoutMs: number;
  queueTimeoutMs: number;
  maxQueue: number;
  billing: { mode: "per-request" | "per-instance"; granularityMs: number; minimumMs: number };
  resources: { cpuLimit: number | null; memoryLimitMb: number | null };
  startTimeoutMs: number;
}

/**
 * Each platform's defaults. Where the real value is undocumented or too large
 * for one machine, the local choice is marked; docs/local-engine.md has sources.
 */
export const FUNCTION_PLATFORM_DEFAULTS: Record<
  FunctionPlatform,
  Omit<FunctionSettings, "platform" | "minInstances" | "resources" | "startTimeoutMs" | "maxQueue">
> = {
  // Synchronous invocations over the limit are throttled at once (429), not queued; billed per request in 1 ms steps.
  lambda: {
    concurrency: 1,
    maxInstances: 4,
    idleTimeoutMs: 300_000,
    queueTimeoutMs: 0,
    billing: { mode: "per-request", granularityMs: 1, minimumMs: 1 },
  },
  // Default concurrency 80; pending requests wait for an instance (local: 10 s); instance time billed in 100 ms steps.
  "cloud-run": {
    concurrency: 80,
    maxInstances: 4,
    idleTimeoutMs: 900_000,
    queueTimeoutMs: 10_000,
    billing: { mode: "per-instance", granularityMs: 100, minimumMs: 100 },
  },
  // Action concurrency 1; activations wait in the invoker's queue (blocking calls up to 60 s); billed per activation in 100 ms steps.
  openwhisk: {
    concurrency: 1,
    maxInstances: 4,
    idleTimeoutMs: 600_000,
    queueTimeoutMs: 60_000,
    billing: { mode: "per-request", granularityMs: 100, minimumMs: 100 },
  },
};

/** A local-function spec with every default filled in from its platform. */
export function functionSettings(spec: LocalFunctionSpec): FunctionSettings {
  const platform = spec.platform ?? "cloud-run";
  const d = FUNCTION_PLATFORM_DEFAULTS[platform];
  const minInstances = spec.minInstances ?? 0;
  return {
    platform,
    concurrency: spec.concurrency ?? d.concurrency,
    minInstances,
    maxInstances: Math.max(minInstances, spec.maxInstances ?? d.maxInstances, 1),
    idleTimeoutMs: spec.idleTimeoutMs ?? d.idleTimeoutMs,
    queueTimeoutMs: spec.queueTimeoutMs ?? d.queueTimeoutMs,
    maxQueue: spec.maxQueue ?? 1000,
    billing: {
      mode: spec.billing?.mode ?? d.billing.mode,
      granularityMs: spec.billing?.granularityMs ?? d.billing.granularityMs,
      minimumMs: spec.billing?.minimumMs ?? d.billing.minimumMs,
    },
    resources: { cpuLimit: spec.resources?.cpuLimit ?? null, memoryLimitMb: spec.resources?.memoryLimitMb ?? null },
    startTimeoutMs: spec.startTimeoutMs,
  };
}

/** A duration as the platform bills it: rounded up to the granularity, never below the minimum. */
export function billedDurationMs(durationMs: number, billing: { granularityMs: number; minimumMs: number }): number {
  const rounded = Math.ceil(Math.max(0, durationMs) / billing.granularityMs - 1e-9) * billing.granularityMs;
  return Math.max(billing.minimumMs, rounded);
}

/** The workspace credential a target spec names (`credential: "<name>"`), if any: the worker opens it before deploying. */
export function credentialNameOf(spec: unknown): string | null {
  const s = typeof spec === "object" && spec !== null ? (spec as { credential?: unknown; linked?: { credential?: unknown } }) : {};
  const name = s.credential ?? s.linked?.credential;
  return typeof name === "string" && name.length > 0 ? name : null;
}
