// Serverful (reserved) cost: nodes are paid while they exist, whether busy or
// not, plus fixed fees for the window (a Kubernetes control plane, load balancer
// hours). Node count over time is a staircase, not a constant (IoT study 6.3).
import { z } from "zod";
import { checkRequestCounts, commonUsageFields } from "./usage-fields";
import { costResult, costLine, type CostLine, type CostResult } from "./cost-result";
import { perGibLines, perGibPrice } from "./per-gib-line";
import { billedStaircaseSeconds, checkStaircase, roundUpTo, staircaseSeconds, staircaseStep } from "./staircase";

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
  })
  .strict();
export type ReservedModel = z.infer<typeof reservedModel>;

export const reservedUsage = z
  .object({
    /** The window priced, in seconds (the IoT study: a 30 min run = 1800). */
    durationSeconds: z.number().positive("must be > 0"),
    nodes: z.array(staircaseStep).min(1, 'needs at least one step, e.g. [{"fromSecond":0,"count":2}]'),
    /** Node-seconds outside the staircase, e.g. a node that outlived the run until scale-down (the IoT study's third node). */
    extraNodeSeconds: z.number().min(0, "must be >= 0").default(0),
    ...commonUsageFields,
  })
  .strict()
  .superRefine((u, ctx) => {
    checkStaircase(u.nodes, u.durationSeconds, "nodes", ctx);
    checkRequestCounts(u, ctx);
  });
export type ReservedUsage = z.infer<typeof reservedUsage>;

export function priceReserved(model: ReservedModel, usage: ReservedUsage): CostResult {
  const notes: string[] = [];
  const granularity = model.billingGranularitySeconds ?? 0;
  const nodeSeconds = billedStaircaseSeconds(usage.nodes, usage.durationSeconds, granularity, model.minimumSecondsPerNode);
  const seen = staircaseSeconds(usage.nodes, usage.durationSeconds);
  if (nodeSeconds !== seen) notes.push(`node lifetimes rounded up: ${fmt(seen)} node-s seen, ${fmt(nodeSeconds)} billed`);

  const lines: CostLine[] = [costLine("nodes", `${model.nodeLabel} time`, "node-s", model.pricePerNodeSecond, nodeSeconds)];
  if (usage.extraNodeSeconds > 0)
    lines.push(
      costLine("extra-nodes", `${model.nodeLabel} time outside the window`, "node-s", model.pricePerNodeSecond, usage.extraNodeSeconds),
    );
  if (model.feePerSecond > 0) lines.push(costLine("fee", "fixed fee", "s", model.feePerSecond, usage.durationSeconds));
  model.fees.forEach((f, i) => {
    const seconds = f.billingGranularitySeconds ? roundUpTo(usage.durationSeconds, f.billingGranularitySeconds) : usage.durationSeconds;
    lines.push(costLine(`fee:${i}`, f.label, "s", f.perSecond, seconds));
  });
  lines.push(...perGibLines(model, usage, notes));
  return costResult("reserved", model.unit, lines, usage, notes);
}

const fmt = (n: number) => String(Math.round(n * 1000) / 1000);
