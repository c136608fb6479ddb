// What pricing produces: line items in the model's unit, their total, and the
// total per 1,000 requests (all, and successful ones) - the IoT study's Table 5.45 figure.
// The schemas also read the cost stored in a run's summary (runs.summary.cost).
import { z } from "zod";

export const costLineSchema = z.object({
  /** Stable identifier of the line: "nodes", "fee:0", "requests", "vcpu", "memory", "logging", "egress", "item:0"... */
  key: z.string(),
  label: z.string(),
  /** Quantity used, after the platform's rounding and minimums. */
  used: z.number(),
  /** Part of `used` the free tier covers. */
  free: z.number(),
  /** used - free (never below 0): what is charged. */
  billed: z.number(),
  quantityUnit: z.string(),
  unitPrice: z.number(),
  amount: z.number(),
});
export type CostLine = z.infer<typeof costLineSchema>;

export const costResultSchema = z.object({
  kind: z.enum(["reserved", "pay-per-use", "custom"]),
  /** The unit every price and amount is in, as the model states it ("EUR-cent", "USD"...). */
  unit: z.string(),
  total: z.number(),
  requests: z.number().nullable(),
  /** Known when the usage gives failedRequests or successfulRequests. */
  successfulRequests: z.number().nullable(),
  perThousandRequests: z.number().nullable(),
  perThousandSuccessfulRequests: z.number().nullable(),
  lines: z.array(costLineSchema),
  /** Assumptions worth knowing when reading the figures. */
  notes: z.array(z.string()),
  /** The catalog entry the model came from, if any. */
  catalog: z.object({ name: z.string(), version: z.string() }).optional(),
});
export type CostResult = z.infer<typeof costResultSchema>;

export function costLine(key: string, label: string, quantityUnit: string, unitPrice: number, used: number, freeAllowance = 0): CostLine {
  const free = Math.min(used, freeAllowance);
  const billed = Math.max(0, used - free);
  return { key, label, used, free, billed, quantityUnit, unitPrice, amount: billed * unitPrice };
}

/** Request counts shared by every usage shape. */
export interface RequestCounts {
  requests?: number;
  failedRequests?: number;
  successfulRequests?: number;
}

export function successfulOf(u: RequestCounts): number | null {
  if (u.successfulRequests !== undefined) return u.successfulRequests;
  if (u.failedRequests !== undefined && u.requests !== undefined) return u.requests - u.failedRequests;
  return null;
}

export function costResult(kind: CostResult["kind"], unit: string, lines: CostLine[], counts: RequestCounts, notes: string[]): CostResult {
  const total = lines.reduce((s, l) => s + l.amount, 0);
  const requests = counts.requests ?? null;
  const successfulRequests = successfulOf(counts);
  const perThousand = (n: number | null) => (n ? (total / n) * 1000 : null);
  if (successfulRequests === null && requests !== null)
    notes.push("per 1,000 successful requests needs failedRequests or successfulRequests in the usage");
  return {
    kind,
    unit,
    total,
    requests,
    successfulRequests,
    perThousandRequests: perThousand(requests),
    perThousandSuccessfulRequests: perThousand(successfulRequests),
    lines,
    notes,
  };
}
