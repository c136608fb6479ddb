// Costs of compared groups: a group's priced runs added up (per 1,000 successful requests: a
// target answering fast failures must not look cheaper), and break-even curves for each
// serverful x serverless pair of groups, the serverful capacity only from runs that saturated.
import { breakEven, breakEvenInput, type BreakEven } from "./break-even";
import type { RunCost } from "./run-cost";

/** A group's cost, priced by the cost engine. */
export interface GroupCost {
  /** The unit the prices are in ("EUR-cent", "USD", ...). */
  unit: string;
  total: number | null;
  /** Per 1,000 requests of any outcome: descriptive (a failed request is billed but served nobody). */
  perThousandRequests: number | null;
  /** Per 1,000 successful requests: the figure tables and charts show; null when a priced run did not count its successes. */
  perThousandSuccessfulRequests: number | null;
  /** Where the figure came from, e.g. the catalog entry. */
  source: string;
  /** What some run's price assumed rather than measured (e.g. one node, for a run with no replica data); empty when nothing. */
  assumptions: string[];
}

/**
 * A group's cost: the sum of its runs' priced totals (the worker prices each run
 * under its target's cost model) over their successful requests, x 1000 (and over all
 * requests, descriptive). Null when no run of the group was priced (the target names no cost model).
 */
export function groupCost(costs: ReadonlyArray<RunCost | null | undefined>): GroupCost | null {
  const priced = costs.filter((c): c is RunCost => c != null);
  if (priced.length === 0) return null;
  const total = priced.reduce((sum, c) => sum + c.total, 0);
  const requests = priced.reduce((sum, c) => sum + (c.requests ?? 0), 0);
  const counted = priced.every((c) => c.successfulRequests !== null);
  const successful = priced.reduce((sum, c) => sum + (c.successfulRequests ?? 0), 0);
  return {
    unit: priced[0]!.unit,
    total,
    perThousandRequests: requests > 0 ? (total / requests) * 1000 : null,
    perThousandSuccessfulRequests: counted && successful > 0 ? (total / successful) * 1000 : null,
    source: [...new Set(priced.map((c) => c.source))].join(", "),
    assumptions: [...new Set(priced.flatMap((c) => c.assumptions ?? []))],
  };
}

/** A month as cloud price sheets count it (AWS, Google Cloud: 730 hours). */
export const MONTH_SECONDS = 730 * 3600;

/**
 * What a group's runs would cost over a month at the rate they were measured at: their priced totals over the spans
 * they were priced for (each run's load window), times a 730-hour month. Null when no run was priced or a priced run
 * did not record its span (runs priced before pricedSpan was kept).
 */
export function perMonthAtMeasuredRate(costs: ReadonlyArray<RunCost | null | undefined>): number | null {
  const priced = costs.filter((c): c is RunCost => c != null);
  if (priced.length === 0 || priced.some((c) => !c.pricedSpan || c.pricedSpan.seconds <= 0)) return null;
  const seconds = priced.reduce((sum, c) => sum + c.pricedSpan!.seconds, 0);
  return (priced.reduce((sum, c) => sum + c.total, 0) / seconds) * MONTH_SECONDS;
}

/**
 * Whether priced figures may be ranked ("the cheapest"): only among two or more priced ones; a single priced figure
 * beside unpriced ones is cheaper than nothing, not than the others.
 */
export const rankablePriced = (pricedCount: number) => pricedCount >= 2;

/** What a group's runs say of its capacity (successful req/s): measured only where a run saturated (core's runs/saturation.ts). */
export type GroupCapacity =
  | { known: true; rps: number; saturatedRuns: number; runs: number; why: string }
  | { known: false; offeredRps: number | null; why: string };

/** A run's saturation as the capacity reads it (runs/saturation.ts's Saturation). */
export interface RunCapacitySign {
  saturated: boolean;
  capacityRps: number | null;
  why: string;
}

/**
 * A group's capacity: the mean capacity of its runs that saturated; none saturated: unknown, with the highest
 * successful req/s it was seen serving (`maxThroughputRps`, the offered load) and why.
 */
export function groupCapacity(signs: readonly RunCapacitySign[], maxThroughputRps: number | null): GroupCapacity {
  const at = signs.filter((s) => s.saturated && s.capacityRps !== null && s.capacityRps > 0);
  if (at.length > 0) {
    const rps = at.reduce((a, s) => a + s.capacityRps!, 0) / at.length;
    return { known: true, rps, saturatedRuns: at.length, runs: signs.length, why: at.map((s) => s.why).join("; ") };
  }
  return {
    known: false,
    offeredRps: maxThroughputRps,
    why: signs.length ? `no run saturated: ${[...new Set(signs.map((s) => s.why))].join("; ")}` : "no run's saturation is known",
  };
}

export interface BreakEvenPair {
  serverful: string;
  serverless: string;
  /**
   * Requests per second one serverful replica serves (the saturated runs' capacity / their mean replicas), the
   * staircase's step; null when no run saturated ("offered load, capacity unknown": no staircase is drawn).
   */
  capacityPerNodeRps: number | null;
  /** Where the serverful side's capacity came from, or why it is unknown. */
  capacity: { known: boolean; why: string; replicas: number; servedRps: number | null };
  result: BreakEven;
}

/** A compared group as break-even needs it. */
export interface CostedGroup {
  label: string;
  /** The first priced run's cost (its model is the group's). */
  cost: RunCost | null;
  /** The group's merged successful req/s (null when nothing was measured). */
  rps: number | null;
  /** Its capacity, from runs that saturated (groupCapacity). */
  capacity: GroupCapacity;
  /** Replicas seen over the load (every infra point). */
  replicas: readonly number[];
}

/**
 * Break-even curves for every serverful (reserved) x serverless (request-billed)
 * pair of priced groups: cost per hour vs a steady rate of successful requests. With a
 * measured capacity the serverful side adds a replica per replica capacity (a staircase);
 * without one (no run saturated) it is drawn at the replicas seen, only up to the rate
 * they were seen serving, and nothing beyond it is invented.
 */
export function breakEvenPairs(groups: readonly CostedGroup[]): BreakEvenPair[] {
  const out: BreakEvenPair[] = [];
  for (const sf of groups) {
    if (sf.cost?.model.kind !== "reserved") continue;
    const replicas = sf.replicas.filter((n) => n > 0);
    const meanReplicas = replicas.length ? replicas.reduce((a, b) => a + b, 0) / replicas.length : 1;
    const minNodes = Math.max(1, Math.min(...(replicas.length ? replicas : [1])));
    const cap = sf.capacity;
    const servedRps = cap.known ? cap.rps : cap.offeredRps;
    if (!servedRps || !(servedRps > 0)) continue;
    const capacityPerNodeRps = cap.known ? cap.rps / meanReplicas : null;
    for (const sl of groups) {
      if (sl.cost?.model.kind !== "pay-per-use" || sl.cost.model.billing !== "request" || sl.cost.unit !== sf.cost.unit) continue;
      const serverful =
        capacityPerNodeRps !== null
          ? { model: sf.cost.model, capacityPerNodeRps, minNodes }
          : // Capacity unknown: the replicas seen, up to what they served (one "step" that ends there, never a staircase).
            { model: sf.cost.model, capacityPerNodeRps: servedRps / minNodes, minNodes, maxNodes: minNodes };
      const input = breakEvenInput.safeParse({
        serverful,
        serverless: { model: sl.cost.model, meanBilledSeconds: sl.cost.meanBilledSeconds ?? 0 },
        maxRps: Math.max(servedRps * (capacityPerNodeRps !== null ? 4 : 2), (sl.rps ?? 0) * 2),
      });
      if (input.success)
        out.push({
          serverful: sf.label,
          serverless: sl.label,
          capacityPerNodeRps,
          capacity: { known: cap.known, why: cap.why, replicas: minNodes, servedRps },
          result: breakEven(input.data),
        });
    }
  }
  return out;
}
