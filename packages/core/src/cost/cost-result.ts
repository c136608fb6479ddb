// What pricing produces: line items in the model's unit, their total, and the
// total per 1,000 requests (all, and successful ones) - the IoT study's Table 5.45 figure.

export interface CostLine {
  /** Stable identifier of the line: "nodes", "fee:0", "requests", "vcpu", "memory", "logging", "egress", "item:0"... */
  key: string;
  label: string;
  /** Quantity used, after the platform's rounding and minimums. */
  used: number;
  /** Part of `used` the free tier covers. */
  free: number;
  /** used - free (never below 0): what is charged. */
  billed: number;
  quantityUnit: string;
  unitPrice: number;
  amount: number;
}

export interface CostResult {
  kind: "reserved" | "pay-per-use" | "custom";
  /** The unit every price and amount is in, as the model states it ("EUR-cent", "USD"...). */
  unit: string;
  total: number;
  requests: number | null;
  /** Known when the usage gives failedRequests or successfulRequests. */
  successfulRequests: number | null;
  perThousandRequests: number | null;
  perThousandSuccessfulRequests: number | null;
  lines: CostLine[];
  /** Assumptions worth knowing when reading the figures. */
  notes: string[];
  /** The catalog entry the model came from, if any. */
  catalog?: { name: string; version: string };
}

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
