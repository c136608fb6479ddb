// Costs of compared groups: a group's priced runs added up, and break-even curves
// for each serverful x serverless pair of groups.
import { breakEven, breakEvenInput, type BreakEven } from "./break-even";
import type { RunCost } from "./run-cost";

/** A group's cost, priced by the cost engine. */
export interface GroupCost {
  /** The unit the prices are in ("EUR-cent", "USD", ...). */
  unit: string;
  total: number | null;
  perThousandRequests: number | null;
  /** Where the figure came from, e.g. the catalog entry. */
  source: string;
  /** What some run's price assumed rather than measured (e.g. one node, for a run with no replica data); empty when nothing. */
  assumptions: string[];
}

/**
 * A group's cost: the sum of its runs' priced totals (the worker prices each run
 * under its target's cost model) over all their requests, x 1000. Null when no run
 * of the group was priced (the target names no cost model).
 */
export function groupCost(costs: ReadonlyArray<RunCost | null | undefined>): GroupCost | null {
  const priced = costs.filter((c): c is RunCost => c != null);
  if (priced.length === 0) return null;
  const total = priced.reduce((sum, c) => sum + c.total, 0);
  const requests = priced.reduce((sum, c) => sum + (c.requests ?? 0), 0);
  return {
    unit: priced[0]!.unit,
    total,
    perThousandRequests: requests > 0 ? (total / requests) * 1000 : null,
    source: [...new Set(priced.map((c) => c.source))].join(", "),
    assumptions: [...new Set(priced.flatMap((c) => c.assumptions ?? []))],
  };
}

export interface BreakEvenPair {
  serverful: string;
  serverless: string;
  /** Requests per second one serverful replica served (its best 10 s / its mean replicas), the staircase's step. */
  capacityPerNodeRps: number;
  result: BreakEven;
}

/** A compared group as break-even needs it. */
export interface CostedGroup {
  label: string;
  /** The first priced run's cost (its model is the group's). */
  cost: RunCost | null;
  /** The group's merged req/s and best 10 s window (null when nothing was measured). */
  rps: number | null;
  maxThroughputRps: number | null;
  /** Replicas seen over the load (every infra point). */
  replicas: readonly number[];
}

/**
 * Break-even curves for every serverful (reserved) x serverless (request-billed)
 * pair of priced groups: cost per hour vs a steady request rate, with the serverful
 * side adding a replica per measured replica capacity (a staircase).
 */
export function breakEvenPairs(groups: readonly CostedGroup[]): BreakEvenPair[] {
  const out: BreakEvenPair[] = [];
  for (const sf of groups) {
    if (sf.cost?.model.kind !== "reserved" || !sf.maxThroughputRps) continue;
    const replicas = sf.replicas.filter((n) => n > 0);
    const meanReplicas = replicas.length ? replicas.reduce((a, b) => a + b, 0) / replicas.length : 1;
    const capacityPerNodeRps = sf.maxThroughputRps / meanReplicas;
    for (const sl of groups) {
      if (
        sl.cost?.model.kind !== "pay-per-use" ||
        sl.cost.model.billing !== "request" ||
        sl.cost.unit !== sf.cost.unit ||
        !(capacityPerNodeRps > 0)
      )
        continue;
      const input = breakEvenInput.safeParse({
        serverful: { model: sf.cost.model, capacityPerNodeRps, minNodes: Math.max(1, Math.min(...(replicas.length ? replicas : [1]))) },
        serverless: { model: sl.cost.model, meanBilledSeconds: sl.cost.meanBilledSeconds ?? 0 },
        maxRps: Math.max(capacityPerNodeRps * 4, (sl.rps ?? 0) * 2),
      });
      if (input.success) out.push({ serverful: sf.label, serverless: sl.label, capacityPerNodeRps, result: breakEven(input.data) });
    }
  }
  return out;
}
