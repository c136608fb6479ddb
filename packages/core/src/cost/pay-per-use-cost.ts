// Serverless (pay-per-use) cost: a fee per request plus the vCPU-seconds and
// GiB-seconds billed, after the platform's rounding, minimum and free tier.
// Request-based billing (Lambda; Cloud Run's default) bills the time requests
// are handled; instance-based billing (Cloud Run "CPU always allocated") bills
// instances for their whole life and charges no request fee.
import { z } from "zod";
import { checkRequestCounts, commonUsageFields } from "./usage-fields";
import { costResult, costLine, type CostLine, type CostResult } from "./cost-result";
import { perGibLines, perGibPrice } from "./per-gib-line";
import { billedStaircaseSeconds, checkStaircase, roundUpTo, staircaseStep } from "./staircase";

const price = z.number().min(0, "must be >= 0");
const amount = z.number().min(0, "must be >= 0");

export const payPerUseModel = z
  .object({
    kind: z.literal("pay-per-use"),
    unit: z.string().min(1).max(32),
    description: z.string().max(2000).optional(),
    billing: z.enum(["request", "instance"]).default("request"),
    pricePerRequest: price.default(0),
    pricePerVcpuSecond: price.default(0),
    pricePerGibSecond: price.default(0),
    /** vCPUs per instance (or per request, for one request per instance). */
    vcpu: z.number().positive("must be > 0").default(1),
    memoryGib: amount.default(0),
    /** Billed time is rounded up to this (Lambda 1 ms, Cloud Run 100 ms). */
    billingGranularityMs: z.number().positive("must be > 0").default(1),
    /** Billed time per request (or per instance start) is at least this. */
    minimumBilledMs: amount.default(0),
    freeRequests: amount.default(0),
    freeVcpuSeconds: amount.default(0),
    freeGibSeconds: amount.default(0),
    logging: perGibPrice.optional(),
    egress: perGibPrice.optional(),
  })
  .strict()
  .superRefine((m, ctx) => {
    if (m.pricePerGibSecond > 0 && m.memoryGib === 0)
      ctx.addIssue({ code: "custom", path: ["memoryGib"], message: "is needed (> 0) when pricePerGibSecond is set" });
  });
export type PayPerUseModel = z.infer<typeof payPerUseModel>;

const BILLED_TIME_FIELDS = ["meanBilledSeconds", "requestSeconds", "billedSeconds", "instances", "instanceSeconds"] as const;

/** A pay-per-use usage; which billed-time field it needs depends on the model's billing. */
export const payPerUseUsage = z
  .object({
    ...commonUsageFields,
    /** Request-based: mean billed seconds per request (the IoT study used the mean response time). */
    meanBilledSeconds: amount.optional(),
    /** Request-based: each request's duration in seconds; rounding and minimum are applied to each. */
    requestSeconds: z.array(amount).optional(),
    /** Either billing: billed seconds as the platform metered them. */
    billedSeconds: amount.optional(),
    /** Instance-based: instance count as a staircase over durationSeconds. */
    instances: z.array(staircaseStep).min(1, "needs at least one step").optional(),
    durationSeconds: z.number().positive("must be > 0").optional(),
    /** Instance-based: instance-seconds in total. */
    instanceSeconds: amount.optional(),
  })
  .strict();
export type PayPerUseUsage = z.infer<typeof payPerUseUsage>;

/** The usage schema for one model: says which billed-time fields that model's billing accepts. */
export function payPerUseUsageFor(model: PayPerUseModel) {
  const accepted: readonly string[] =
    model.billing === "request"
      ? ["meanBilledSeconds", "requestSeconds", "billedSeconds"]
      : ["instances", "instanceSeconds", "billedSeconds"];
  return payPerUseUsage.superRefine((u, ctx) => {
    const given = BILLED_TIME_FIELDS.filter((f) => u[f] !== undefined);
    for (const f of given) {
      if (!accepted.includes(f))
        ctx.addIssue({
          code: "custom",
          path: [f],
          message: `does not apply to ${model.billing}-based billing (use ${accepted.join(", ")})`,
        });
    }
    const usable = given.filter((f) => accepted.includes(f));
    if (usable.length === 0 && given.length === 0)
      ctx.addIssue({ code: "custom", path: [], message: `${model.billing}-based billing needs one of ${accepted.join(", ")}` });
    if (usable.length > 1) ctx.addIssue({ code: "custom", path: [usable[1]!], message: `give only one of ${usable.join(", ")}` });
    if (u.requestSeconds !== undefined && u.requests !== undefined && u.requests !== u.requestSeconds.length) {
      ctx.addIssue({
        code: "custom",
        path: ["requests"],
        message: `is ${u.requests} but requestSeconds lists ${u.requestSeconds.length} requests`,
      });
    }
    if (model.billing === "request" && u.requests === undefined && u.requestSeconds === undefined)
      ctx.addIssue({ code: "custom", path: ["requests"], message: "is needed for request-based billing" });
    if (u.instances !== undefined) {
      if (u.durationSeconds === undefined) ctx.addIssue({ code: "custom", path: ["durationSeconds"], message: "is needed with instances" });
      else checkStaircase(u.instances, u.durationSeconds, "instances", ctx);
    }
    checkRequestCounts({ ...u, requests: u.requests ?? u.requestSeconds?.length }, ctx);
  });
}

export function pricePayPerUse(model: PayPerUseModel, usage: PayPerUseUsage): CostResult {
  const notes: string[] = [];
  const requests = usage.requests ?? usage.requestSeconds?.length ?? 0;
  const seconds = billedSeconds(model, usage, requests, notes);
  const lines: CostLine[] = [];
  if (model.pricePerRequest > 0)
    lines.push(costLine("requests", "requests", "requests", model.pricePerRequest, requests, model.freeRequests));
  if (model.pricePerVcpuSecond > 0)
    lines.push(
      costLine("vcpu", `vCPU time (${model.vcpu} vCPU)`, "vCPU-s", model.pricePerVcpuSecond, seconds * model.vcpu, model.freeVcpuSeconds),
    );
  if (model.pricePerGibSecond > 0)
    lines.push(
      costLine(
        "memory",
        `memory time (${model.memoryGib} GiB)`,
        "GiB-s",
        model.pricePerGibSecond,
        seconds * model.memoryGib,
        model.freeGibSeconds,
      ),
    );
  lines.push(...perGibLines(model, usage, notes));
  return costResult("pay-per-use", model.unit, lines, { ...usage, requests: usage.requests ?? usage.requestSeconds?.length }, notes);
}

/** Billed seconds of compute (per instance or per request), after rounding and minimums. */
function billedSeconds(model: PayPerUseModel, u: PayPerUseUsage, requests: number, notes: string[]): number {
  const granularity = model.billingGranularityMs / 1000;
  const minimum = model.minimumBilledMs / 1000;
  if (u.billedSeconds !== undefined) return u.billedSeconds;
  if (u.requestSeconds !== undefined) {
    let sum = 0;
    for (const s of u.requestSeconds) sum += Math.max(minimum, roundUpTo(s, granularity));
    return sum;
  }
  if (u.meanBilledSeconds !== undefined) {
    if (model.billingGranularityMs > 1 || model.minimumBilledMs > 0) {
      notes.push(
        "meanBilledSeconds is taken as billed: rounding and minimum per request cannot be applied to a mean (give requestSeconds for that)",
      );
    }
    return requests * u.meanBilledSeconds;
  }
  if (u.instances !== undefined) return billedStaircaseSeconds(u.instances, u.durationSeconds!, granularity, minimum);
  return u.instanceSeconds ?? 0;
}
