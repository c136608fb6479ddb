// Serverful (reserved) cost: nodes are paid while they exist, whether busy or
// not, plus fixed fees for the window (a Kubernetes control plane, load balancer
// hours). Node count over time is a staircase, not a constant (IoT study 6.3).
import { z } from "zod";
import { checkRequestCounts, commonUsageFields } from "./usage-fields";
import { costResult, costLine, type CostLine, type CostResult } from "./cost-result";
import { perGibLines, perGibPrice } from "./per-gib-line";
import { billedStaircaseSeconds, checkStaircase, roundUpTo, staircaseSeconds, staircaseStep } from "./staircase";
import { lcuHours, nodeStaircase, podsPerNodeOf } from "./node-packing";

const price = z.number().min(0, "must be >= 0");
const label = z.string().min(1).max(80);

export const fixedFee = z
  .object({
    label,
    perSecond: price,
    /** Billed per started period of this many seconds (ELB: "each hour or partial hour" = 3600). */
    billingGranularitySeconds: z.number().positive("must be > 0").optional(),
  })
  .strict();

export const reservedModel = z
  .object({
    kind: z.literal("reserved"),
    unit: z.string().min(1).max(32),
    description: z.string().max(2000).optional(),
    /** What one node is, for the line item ("node", "t3.medium"). */
    nodeLabel: label.default("node"),
    pricePerNodeSecond: price,
    /** One fixed fee per second, e.g. the GKE management fee. */
    feePerSecond: price.default(0),
    /** Further named fixed fees. */
    fees: z.array(fixedFee).default([]),
    /** A node started and stopped within the window is billed in whole periods of this many seconds. */
    billingGranularitySeconds: z.number().positive("must be > 0").optional(),
    /** ... and for at least this many seconds (EC2, Compute Engine: 60). */
    minimumSecondsPerNode: z.number().min(0, "must be >= 0").default(0),
    logging: perGibPrice.optional(),
    egress: perGibPrice.optional(),
    /**
     * Kubernetes as billed: pods packed onto nodes. Pods per node, or the node's allocatable vCPU (divided by the
     * pod's CPU request, which a kubernetes run supplies). With either, a usage's `pods` is priced by `basis`.
     */
    podsPerNode: z.number().int().min(1, "must be >= 1").max(1000).optional(),
    nodeVcpu: z.number().positive("must be > 0").max(1000).optional(),
    /** nodes (default): the node staircase the pods need; pods: each pod pays its share of a node (a shared cluster). */
    basis: z.enum(["nodes", "pods"]).default("nodes"),
    /** The node pool never goes below this many nodes (the IoT study's GKE pool: 2). */
    minNodes: z.number().int().min(0).max(100_000).default(0),
    /** A node no longer needed stays this long before the cluster autoscaler removes it (GKE/EKS default: 600). */
    scaleDownDelaySeconds: z.number().min(0).max(86_400).default(0),
    /** An Application Load Balancer's capacity units (LCU-hours), AWS's second ALB charge beside its hours. */
    loadBalancerCapacity: z
      .object({ label: label.default("ALB capacity units"), pricePerLcuHour: price })
      .strict()
      .optional(),
  })
  .strict();
export type ReservedModel = z.infer<typeof reservedModel>;

const steps = z.array(staircaseStep).min(1, 'needs at least one step, e.g. [{"fromSecond":0,"count":2}]');

export const reservedUsage = z
  .object({
    /** The window priced, in seconds (the IoT study: a 30 min run = 1800). */
    durationSeconds: z.number().positive("must be > 0"),
    /** Nodes over time. Give this, or `pods` (with a model that packs pods: podsPerNode or nodeVcpu). */
    nodes: steps.optional(),
    /** Pods over time (a kubernetes run's ready pods). */
    pods: steps.optional(),
    /** The pod's CPU request in cores, when the model gives nodeVcpu. */
    podCpu: z.number().positive("must be > 0").optional(),
    /** Node-seconds outside the staircase, e.g. a node that outlived the run until scale-down (the IoT study's third node). */
    extraNodeSeconds: z.number().min(0, "must be >= 0").default(0),
    /** LCU-hours the load balancer reported (CloudWatch ConsumedLCUs), or what they are computed from. */
    lcuHours: z.number().min(0, "must be >= 0").optional(),
    lcu: z
      .object({
        newConnections: z.number().min(0).default(0),
        peakActiveConnections: z.number().min(0).default(0),
        processedGb: z.number().min(0).default(0),
        ruleEvaluations: z.number().min(0).default(0),
      })
      .strict()
      .optional(),
    ...commonUsageFields,
  })
  .strict()
  .superRefine((u, ctx) => {
    if ((u.nodes === undefined) === (u.pods === undefined))
      ctx.addIssue({ code: "custom", path: ["nodes"], message: 'give nodes (e.g. [{"fromSecond":0,"count":2}]) or pods, one of the two' });
    if (u.nodes) checkStaircase(u.nodes, u.durationSeconds, "nodes", ctx);
    if (u.pods) checkStaircase(u.pods, u.durationSeconds, "pods", ctx);
    if (u.lcuHours !== undefined && u.lcu !== undefined)
      ctx.addIssue({ code: "custom", path: ["lcu"], message: "give lcuHours (measured) or lcu (computed from), not both" });
    checkRequestCounts(u, ctx);
  });
export type ReservedUsage = z.infer<typeof reservedUsage>;

/** The usage a reserved model prices: pods need a model that packs them. */
export const reservedUsageFor = (model: ReservedModel) =>
  reservedUsage.superRefine((u, ctx) => {
    if (u.pods && model.podsPerNode === undefined && model.nodeVcpu === undefined)
      ctx.addIssue({ code: "custom", path: ["pods"], message: "pods are priced with a model that gives podsPerNode or nodeVcpu" });
    if (u.pods && model.podsPerNode === undefined && model.nodeVcpu !== undefined && u.podCpu === undefined)
      ctx.addIssue({ code: "custom", path: ["podCpu"], message: "is needed with the model's nodeVcpu (the pod's CPU request, cores)" });
  });

/** Pods per node under the model, or null when the model does not pack pods. */
export function packingOf(model: ReservedModel, podCpu: number | undefined): number | null {
  if (model.podsPerNode !== undefined) return model.podsPerNode;
  if (model.nodeVcpu !== undefined && podCpu !== undefined) return podsPerNodeOf(model.nodeVcpu, podCpu);
  return null;
}

export function priceReserved(model: ReservedModel, usage: ReservedUsage): CostResult {
  const notes: string[] = [];
  const lines: CostLine[] = [];
  const granularity = model.billingGranularitySeconds ?? 0;
  const perPod = usage.pods ? packingOf(model, usage.podCpu) : null;
  if (usage.pods && perPod !== null && model.basis === "pods") {
    // A shared cluster: each pod pays its share of a node for as long as it ran.
    const podSeconds = staircaseSeconds(usage.pods, usage.durationSeconds);
    lines.push(costLine("pods", `pod time (1/${perPod} of a ${model.nodeLabel})`, "pod-s", model.pricePerNodeSecond / perPod, podSeconds));
    notes.push(`priced per pod (basis "pods", a shared cluster): ${perPod} pods share one ${model.nodeLabel}`);
  } else {
    let nodes = usage.nodes ?? [];
    if (usage.pods && perPod !== null) {
      nodes = nodeStaircase(usage.pods, usage.durationSeconds, {
        podsPerNode: perPod,
        minNodes: model.minNodes,
        scaleDownDelaySeconds: model.scaleDownDelaySeconds,
      });
      notes.push(
        `priced by nodes: ${perPod} pods per ${model.nodeLabel}, at least ${model.minNodes} node(s)` +
          (model.scaleDownDelaySeconds > 0 ? `, a node kept ${fmt(model.scaleDownDelaySeconds)} s after it was last needed` : "") +
          `; most nodes ${Math.max(...nodes.map((n) => n.count))}`,
      );
    }
    const nodeSeconds = billedStaircaseSeconds(nodes, usage.durationSeconds, granularity, model.minimumSecondsPerNode);
    const seen = staircaseSeconds(nodes, usage.durationSeconds);
    if (nodeSeconds !== seen) notes.push(`node lifetimes rounded up: ${fmt(seen)} node-s seen, ${fmt(nodeSeconds)} billed`);
    lines.push(costLine("nodes", `${model.nodeLabel} time`, "node-s", model.pricePerNodeSecond, nodeSeconds));
  }
  if (usage.extraNodeSeconds > 0)
    lines.push(
      costLine("extra-nodes", `${model.nodeLabel} time outside the window`, "node-s", model.pricePerNodeSecond, usage.extraNodeSeconds),
    );
  if (model.feePerSecond > 0) lines.push(costLine("fee", "fixed fee", "s", model.feePerSecond, usage.durationSeconds));
  model.fees.forEach((f, i) => {
    const seconds = f.billingGranularitySeconds ? roundUpTo(usage.durationSeconds, f.billingGranularitySeconds) : usage.durationSeconds;
    lines.push(costLine(`fee:${i}`, f.label, "s", f.perSecond, seconds));
  });
  if (model.loadBalancerCapacity) lines.push(lcuLine(model.loadBalancerCapacity, usage, notes));
  lines.push(...perGibLines(model, usage, notes));
  return costResult("reserved", model.unit, lines, usage, notes);
}

function lcuLine(lb: NonNullable<ReservedModel["loadBalancerCapacity"]>, usage: ReservedUsage, notes: string[]): CostLine {
  if (usage.lcuHours !== undefined) {
    notes.push(`${lb.label}: ${fmt(usage.lcuHours)} LCU-hours as measured`);
    return costLine("lcu", lb.label, "LCU-h", lb.pricePerLcuHour, usage.lcuHours);
  }
  if (!usage.lcu) {
    notes.push(`${lb.label} not priced: the usage gives neither lcuHours nor lcu`);
    return costLine("lcu", lb.label, "LCU-h", lb.pricePerLcuHour, 0);
  }
  const r = lcuHours(usage.lcu, usage.durationSeconds);
  notes.push(
    `${lb.label}: ${fmt(r.lcuPerHour)} LCU per hour (highest: ${r.dimension}) over ${r.hours} billed hour(s), the window's usage spread evenly over them`,
  );
  return costLine("lcu", lb.label, "LCU-h", lb.pricePerLcuHour, r.lcuHours);
}

const fmt = (n: number) => String(Math.round(n * 1000) / 1000);
