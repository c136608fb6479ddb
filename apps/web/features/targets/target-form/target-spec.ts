// The target form's boxes as a spec: every input as text, empty boxes left out (the kind's defaults apply).
import type { FunctionPlatform } from "@opsbench/core";
import { numberOrUndefined as n } from "@/components/form-field";

/** The kinds whose boxes are these (kinds/kind-forms.ts reaches them by kind). */
type LocalKind = "local-service" | "local-function";
export type Scaling = "fixed" | "autoscaled";

/** Every input of both local kinds as text; empty = leave out (the kind's default applies). */
export const EMPTY_TARGET_VALUES = {
  replicas: "2",
  minReplicas: "1",
  maxReplicas: "4",
  targetCpuPercent: "50",
  syncPeriodMs: "",
  tolerance: "",
  scaleDownStabilizationMs: "",
  scaleUpStabilizationMs: "",
  cpuRequest: "",
  cpuLimit: "",
  memoryLimitMb: "",
  balancing: "",
  placement: "",
  network: "",
  startTimeoutMs: "",
  concurrency: "",
  minInstances: "",
  maxInstances: "",
  idleTimeoutMs: "",
  queueTimeoutMs: "",
  maxQueue: "",
  billingMode: "",
  granularityMs: "",
  minimumMs: "",
};
export type TargetValues = typeof EMPTY_TARGET_VALUES;

/** Drops undefined values, and the whole object when nothing is left. */
function compact<T extends Record<string, unknown>>(o: T): Partial<T> | undefined {
  const out = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== "")) as Partial<T>;
  return Object.keys(out).length ? out : undefined;
}

function serviceSize(scaling: Scaling, v: TargetValues) {
  if (scaling === "fixed") return { replicas: n(v.replicas) };
  return {
    minReplicas: n(v.minReplicas),
    maxReplicas: n(v.maxReplicas),
    autoscaler: compact({
      targetCpuPercent: n(v.targetCpuPercent),
      syncPeriodMs: n(v.syncPeriodMs),
      tolerance: n(v.tolerance),
      scaleDownStabilizationMs: n(v.scaleDownStabilizationMs),
      scaleUpStabilizationMs: n(v.scaleUpStabilizationMs),
    }) ?? { targetCpuPercent: undefined },
  };
}

export function buildTargetSpec(
  kind: LocalKind,
  app: string,
  scaling: Scaling,
  platform: FunctionPlatform,
  v: TargetValues,
): Record<string, unknown> {
  const resources = compact({
    ...(kind === "local-service" ? { cpuRequest: n(v.cpuRequest) } : {}),
    cpuLimit: n(v.cpuLimit),
    memoryLimitMb: n(v.memoryLimitMb),
  });
  const common = { app, ...(resources ? { resources } : {}), ...(v.startTimeoutMs.trim() ? { startTimeoutMs: n(v.startTimeoutMs) } : {}) };
  if (kind === "local-service") {
    return {
      ...common,
      ...compact(serviceSize(scaling, v)),
      ...compact({ balancing: v.balancing, placement: v.placement, network: v.network }),
    };
  }
  const billing = compact({ mode: v.billingMode || undefined, granularityMs: n(v.granularityMs), minimumMs: n(v.minimumMs) });
  return {
    ...common,
    ...compact({
      concurrency: n(v.concurrency),
      minInstances: n(v.minInstances),
      maxInstances: n(v.maxInstances),
      idleTimeoutMs: n(v.idleTimeoutMs),
      queueTimeoutMs: n(v.queueTimeoutMs),
      maxQueue: n(v.maxQueue),
    }),
    ...(billing ? { billing } : {}),
    platform,
  };
}

/** The spec keys the local boxes stand for (pricing included); the rest of a stored spec (env, database) is kept as it is. */
const LOCAL_COVERED = [
  "app",
  "resources",
  "startTimeoutMs",
  "replicas",
  "minReplicas",
  "maxReplicas",
  "autoscaler",
  "balancing",
  "placement",
  "network",
  "concurrency",
  "minInstances",
  "maxInstances",
  "idleTimeoutMs",
  "queueTimeoutMs",
  "maxQueue",
  "billing",
  "platform",
  "costModel",
];

/** A stored local spec's boxes (editing it): the inverse of buildTargetSpec, and what the boxes do not cover. */
export function localFormOf(spec: unknown): {
  app: string | undefined;
  scaling: Scaling;
  platform: FunctionPlatform | undefined;
  values: TargetValues;
  kept: Record<string, unknown>;
} {
  const s = (spec && typeof spec === "object" ? spec : {}) as Record<string, unknown>;
  const at = (o: unknown, key: string) => (o && typeof o === "object" ? (o as Record<string, unknown>)[key] : undefined);
  const text = (v: unknown) => (v === undefined || v === null || typeof v === "object" ? "" : String(v));
  const values: TargetValues = {
    ...EMPTY_TARGET_VALUES,
    replicas: text(s.replicas ?? s.minReplicas) || EMPTY_TARGET_VALUES.replicas,
    minReplicas: text(s.minReplicas),
    maxReplicas: text(s.maxReplicas),
    targetCpuPercent: text(at(s.autoscaler, "targetCpuPercent")),
    syncPeriodMs: text(at(s.autoscaler, "syncPeriodMs")),
    tolerance: text(at(s.autoscaler, "tolerance")),
    scaleDownStabilizationMs: text(at(s.autoscaler, "scaleDownStabilizationMs")),
    scaleUpStabilizationMs: text(at(s.autoscaler, "scaleUpStabilizationMs")),
    cpuRequest: text(at(s.resources, "cpuRequest")),
    cpuLimit: text(at(s.resources, "cpuLimit")),
    memoryLimitMb: text(at(s.resources, "memoryLimitMb")),
    balancing: text(s.balancing),
    placement: text(s.placement),
    network: text(s.network),
    startTimeoutMs: text(s.startTimeoutMs),
    concurrency: text(s.concurrency),
    minInstances: text(s.minInstances),
    maxInstances: text(s.maxInstances),
    idleTimeoutMs: text(s.idleTimeoutMs),
    queueTimeoutMs: text(s.queueTimeoutMs),
    maxQueue: text(s.maxQueue),
    billingMode: text(at(s.billing, "mode")),
    granularityMs: text(at(s.billing, "granularityMs")),
    minimumMs: text(at(s.billing, "minimumMs")),
  };
  return {
    app: typeof s.app === "string" ? s.app : undefined,
    // The boxes' two ways: min/max with the autoscaler, else a fixed number.
    scaling: s.autoscaler !== undefined ? "autoscaled" : "fixed",
    platform: typeof s.platform === "string" ? (s.platform as FunctionPlatform) : undefined,
    values,
    kept: Object.fromEntries(Object.entries(s).filter(([k]) => !LOCAL_COVERED.includes(k))),
  };
}
