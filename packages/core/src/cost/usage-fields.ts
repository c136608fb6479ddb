// Usage fields every model kind understands: request counts (for the per-1,000
// figures) and the optional per-GiB quantities (logging, egress).
import { z } from "zod";

const count = z.number().int("must be a whole number").min(0, "must be >= 0");
const gib = z.number().min(0, "must be >= 0");

export const commonUsageFields = {
  /** All requests sent, failed ones included (the IoT study divided by these). */
  requests: count.optional(),
  failedRequests: count.optional(),
  successfulRequests: count.optional(),
  /** GiB of logs ingested (the IoT study's logging bill was 2/3 of its cost). */
  loggingGib: gib.default(0),
  /** GiB sent out to the internet. */
  egressGib: gib.default(0),
};

/** Checks the request counts agree with each other; reports on the usage's own paths. */
export function checkRequestCounts(
  u: { requests?: number; failedRequests?: number; successfulRequests?: number },
  ctx: z.RefinementCtx,
): void {
  if (u.requests === undefined) {
    if (u.failedRequests !== undefined)
      ctx.addIssue({ code: "custom", path: ["requests"], message: "is needed when failedRequests is given" });
    return;
  }
  if (u.failedRequests !== undefined && u.failedRequests > u.requests)
    ctx.addIssue({ code: "custom", path: ["failedRequests"], message: `is more than requests (${u.requests})` });
  if (u.successfulRequests !== undefined && u.successfulRequests > u.requests)
    ctx.addIssue({ code: "custom", path: ["successfulRequests"], message: `is more than requests (${u.requests})` });
  if (u.failedRequests !== undefined && u.successfulRequests !== undefined && u.failedRequests + u.successfulRequests !== u.requests) {
    ctx.addIssue({
      code: "custom",
      path: ["successfulRequests"],
      message: "plus failedRequests must equal requests (give one of the two)",
    });
  }
}
