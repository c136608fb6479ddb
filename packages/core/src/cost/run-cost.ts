// Pricing a run: the usage a cost model needs, built from what a run measured
// (its load window, requests, latency, and the replica/instance timeline), as the
// IoT study did by hand: serverful = node staircase x price; serverless = requests
// + billed time (metered by the platform, else requests x mean response time).
import { z } from "zod";
import { costResultSchema } from "./cost-result";
import { costModel, parseCostUsage, priceUsage, type CostModel } from "./cost-model";
import { parseCostModel } from "./resolve-cost-model";
import type { PriceCatalogEntry } from "./price-catalog";
import { BUILTIN_PRICE_CATALOGS } from "./catalogs";
import { LOAD_WINDOW_SOURCE_IDS, LOAD_WINDOW_SOURCES, type LoadWindowSource } from "../windows/load-window";

/** What a run measured that pricing needs. */
export interface RunUsageFacts {
  durationSeconds: number;
  requests: number;
  failures: number;
  meanLatencySeconds: number;
  /** Replicas (serverful) or instances (serverless) over the load window; offsets in seconds from its start. */
  replicas: Array<{ offsetSeconds: number; replicas: number }>;
  /** Billed seconds as the platform metered them, when it did (local-function). */
  billedSeconds?: number | null;
  /** Which span durationSeconds is (k6's clock, or the worker's). */
  durationSource?: LoadWindowSource;
  /**
   * What a cloud platform reported over the window (Lambda's summed duration, Cloud Run's billable
   * instance time): priced instead of the measured or assumed figures when present.
   */
  platform?: { billedSeconds: number | null; source: string } | null;
  /** The nodes a kubernetes target's pods were held to (its spec's nodes): priced as that many nodes throughout. */
  heldNodes?: number | null;
  /** A kubernetes target's pod CPU request in cores (for a model that gives nodeVcpu). */
  podCpu?: number | null;
  /** LCU-hours the load balancer reported (aws-asg: CloudWatch ConsumedLCUs). */
  lcuHours?: number | null;
  /** What the load sent through a load balancer, for LCUs when none were reported: bytes both ways, connections at most. */
  traffic?: { bytes: number; peakConnections: number } | null;
}

/** A cost model document on a target: a whole model, or a catalog reference with overrides. */
export const costModelDocument = z.unknown().superRefine((doc, ctx) => {
  const r = parseCostModel(doc);
  if (!r.ok) for (const i of r.issues) ctx.addIssue({ code: "custom", path: i.path ? i.path.split(".") : [], message: i.message });
});

/** The replica timeline as a staircase over [0, durationSeconds). */
function staircase(facts: RunUsageFacts): Array<{ fromSecond: number; count: number }> {
  const sorted = [...facts.replicas].sort((a, b) => a.offsetSeconds - b.offsetSeconds);
  const atStart = [...sorted].reverse().find((p) => p.offsetSeconds <= 0) ?? sorted[0];
  const steps = [{ fromSecond: 0, count: Math.max(0, atStart?.replicas ?? 1) }];
  for (const p of sorted) {
    if (p.offsetSeconds <= 0 || p.offsetSeconds >= facts.durationSeconds) continue;
    if (p.replicas !== steps.at(-1)!.count) steps.push({ fromSecond: Math.round(p.offsetSeconds * 1000) / 1000, count: p.replicas });
  }
  return steps;
}

/** The LCU usage of a run: as the balancer reported it, else from what k6 sent (each VU's connection counted new once). */
function lcuUsage(facts: RunUsageFacts) {
  if (facts.lcuHours != null) return { lcuHours: facts.lcuHours };
  if (!facts.traffic) return {};
  const { bytes, peakConnections } = facts.traffic;
  return { lcu: { processedGb: bytes / 1e9, peakActiveConnections: peakConnections, newConnections: peakConnections } };
}

export function usageForRun(model: CostModel, facts: RunUsageFacts): unknown {
  const counts = { requests: facts.requests, failedRequests: facts.failures };
  switch (model.kind) {
    case "reserved": {
      const packs = model.podsPerNode !== undefined || (model.nodeVcpu !== undefined && facts.podCpu != null);
      const timeline = facts.heldNodes
        ? { nodes: [{ fromSecond: 0, count: facts.heldNodes }] }
        : packs
          ? { pods: staircase(facts), ...(facts.podCpu != null ? { podCpu: facts.podCpu } : {}) }
          : { nodes: staircase(facts) };
      return { durationSeconds: facts.durationSeconds, ...timeline, ...(model.loadBalancerCapacity ? lcuUsage(facts) : {}), ...counts };
    }
    case "pay-per-use":
      if (facts.platform?.billedSeconds != null) return { billedSeconds: facts.platform.billedSeconds, ...counts };
      if (model.billing === "instance") return { durationSeconds: facts.durationSeconds, instances: staircase(facts), ...counts };
      return facts.billedSeconds != null
        ? { billedSeconds: facts.billedSeconds, ...counts }
        : { meanBilledSeconds: facts.meanLatencySeconds, ...counts };
    case "custom":
      return null;
  }
}

/** A run's priced cost, as stored in its summary (runs.summary.cost). */
export const runCostSchema = costResultSchema.extend({
  /** Where the model came from (catalog name@version, or "inline"). */
  source: z.string(),
  /** The model priced with (resolved), so a comparison can draw break-even curves from it. */
  model: costModel,
  /** Mean billed seconds per request (serverless), as priced. */
  meanBilledSeconds: z.number().nullable(),
  /** True when a figure the price depends on was assumed rather than measured (see assumptions). Absent on runs priced before it was recorded. */
  estimated: z.boolean().optional(),
  /** What was assumed, in words: e.g. one node throughout, for a run with no replica data. */
  assumptions: z.array(z.string()).optional(),
  /** The span the duration-based lines were priced over. */
  pricedSpan: z.object({ seconds: z.number(), source: z.enum([...LOAD_WINDOW_SOURCE_IDS, "unknown"]), label: z.string() }).optional(),
});
export type RunCost = z.infer<typeof runCostSchema>;

/** Models whose price follows a replica or instance timeline. */
const usesTimeline = (model: CostModel) => model.kind === "reserved" || (model.kind === "pay-per-use" && model.billing === "instance");

/** Prices a run under a target's cost model document; an error message says why it could not. */
export function priceRun(
  modelDocument: unknown,
  facts: RunUsageFacts,
  catalogs: readonly PriceCatalogEntry[] = BUILTIN_PRICE_CATALOGS,
): { ok: true; cost: RunCost } | { ok: false; error: string } {
  const model = parseCostModel(modelDocument, catalogs);
  if (!model.ok) return { ok: false, error: `cost model: ${model.issues.map((i) => `${i.path || "(model)"}: ${i.message}`).join("; ")}` };
  const usageDoc = usageForRun(model.value.model, facts);
  if (usageDoc === null) return { ok: false, error: "custom cost models are priced by hand (opsbench cost), not from a run" };
  const usage = parseCostUsage(model.value.model, usageDoc);
  if (!usage.ok) return { ok: false, error: `usage: ${usage.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}` };
  const source = model.value.catalog ? `${model.value.catalog.name}@${model.value.catalog.version}` : "inline";
  const billed = facts.platform?.billedSeconds ?? facts.billedSeconds;
  const meanBilledSeconds =
    model.value.model.kind === "pay-per-use" && facts.requests > 0
      ? (billed ?? facts.meanLatencySeconds * facts.requests) / facts.requests
      : null;
  const fromPlatform =
    model.value.model.kind === "pay-per-use" && facts.platform?.billedSeconds != null
      ? [`billed time as ${facts.platform.source} reported it: ${facts.platform.billedSeconds} s`]
      : [];
  const m = model.value.model;
  const assumptions = [
    ...(usesTimeline(m) && facts.replicas.length === 0
      ? ["no replica or instance data was recorded for this run: priced as one node throughout"]
      : []),
    ...(m.kind === "reserved" && m.podsPerNode === undefined && m.nodeVcpu !== undefined && facts.podCpu == null
      ? ["the model gives nodeVcpu but the target states no CPU request per pod: each pod priced as a node"]
      : []),
    ...(m.kind === "reserved" && m.loadBalancerCapacity && facts.lcuHours == null && facts.traffic
      ? ["no LCUs were reported: LCUs computed from the bytes k6 sent and received and its VUs (one connection each)"]
      : []),
  ];
  const spanSource: LoadWindowSource | "unknown" = facts.durationSource ?? "unknown";
  const pricedSpan = {
    seconds: facts.durationSeconds,
    source: spanSource,
    label: spanSource === "unknown" ? "load window (source not recorded)" : LOAD_WINDOW_SOURCES[spanSource],
  };
  const priced = priceUsage(model.value.model, usage.value);
  return {
    ok: true,
    cost: {
      ...priced,
      notes: [...assumptions, ...fromPlatform, ...priced.notes],
      source,
      model: model.value.model,
      meanBilledSeconds,
      estimated: assumptions.length > 0,
      assumptions,
      pricedSpan,
    },
  };
}
