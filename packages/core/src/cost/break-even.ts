// Break-even between a serverful and a serverless deployment: the cost of a
// period at a steady request rate, for a range of rates, and the rates where one
// becomes cheaper than the other. Serverful cost is a staircase (one more node per
// `capacityPerNodeRps`), serverless cost rises with every request; so serverless
// can become dearer, then cheaper again right after the serverful side adds a node.
// The IoT study assumed a constant serverful cost (its Section 6.3 says so).
import { z } from "zod";
import { pricePayPerUse, payPerUseModel } from "./pay-per-use-cost";
import { priceReserved, reservedModel } from "./reserved-cost";

export const breakEvenInput = z
  .object({
    serverful: z
      .object({
        model: reservedModel,
        /** Requests per second one node serves well (e.g. measured in a run). */
        capacityPerNodeRps: z.number().positive("must be > 0"),
        minNodes: z.number().int().min(0).default(1),
        /** Beyond maxNodes x capacityPerNodeRps the serverful side cannot serve the rate. */
        maxNodes: z.number().int().min(1).optional(),
      })
      .strict(),
    serverless: z
      .object({
        model: payPerUseModel,
        /** Billed seconds per request (e.g. the mean response time, as the IoT study approximated). */
        meanBilledSeconds: z.number().min(0),
      })
      .strict(),
    /** The period both are priced over, in seconds (3600: cost per hour). */
    periodSeconds: z.number().positive().default(3600),
    maxRps: z.number().positive(),
    /** Evenly spaced rates in the curve (step edges and crossings are added). */
    points: z.number().int().min(2).max(2000).default(101),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.serverful.model.unit !== v.serverless.model.unit) {
      ctx.addIssue({
        code: "custom",
        path: ["serverless", "model", "unit"],
        message: `is "${v.serverless.model.unit}" but the serverful model's is "${v.serverful.model.unit}"`,
      });
    }
    if (v.serverless.model.billing !== "request")
      ctx.addIssue({ code: "custom", path: ["serverless", "model", "billing"], message: "break-even needs request-based billing" });
    if (v.serverful.maxNodes !== undefined && v.serverful.maxNodes < v.serverful.minNodes)
      ctx.addIssue({ code: "custom", path: ["serverful", "maxNodes"], message: "is below minNodes" });
  });
export type BreakEvenInput = z.infer<typeof breakEvenInput>;

export interface BreakEvenPoint {
  rps: number;
  /** Nodes the serverful side needs; null above its capacity. */
  nodes: number | null;
  serverful: number | null;
  serverless: number;
}

export interface BreakEvenCrossing {
  rps: number;
  /** What serverless becomes at this rate, compared with serverful. */
  direction: "serverless-dearer" | "serverless-cheaper";
}

export interface BreakEven {
  unit: string;
  periodSeconds: number;
  points: BreakEvenPoint[];
  crossings: BreakEvenCrossing[];
  /** The lowest rate at which serverless stops being cheaper (0: it never is; null: it stays cheaper over the range). */
  breakEvenRps: number | null;
  /** The highest rate the serverful side can serve, when maxNodes bounds it within the range. */
  serverfulCapacityRps: number | null;
}

const MAX_EDGES = 1000;

export function breakEven(input: BreakEvenInput): BreakEven {
  const { serverful: sf, serverless: sl, periodSeconds: T, maxRps } = input;
  const nodeCost = new Map<number, number>();
  const serverfulCost = (n: number) => {
    if (!nodeCost.has(n)) {
      nodeCost.set(
        n,
        priceReserved(sf.model, {
          durationSeconds: T,
          nodes: [{ fromSecond: 0, count: n }],
          extraNodeSeconds: 0,
          loggingGib: 0,
          egressGib: 0,
        }).total,
      );
    }
    return nodeCost.get(n)!;
  };
  const serverlessCost = (rps: number) =>
    pricePayPerUse(sl.model, { requests: rps * T, meanBilledSeconds: sl.meanBilledSeconds, loggingGib: 0, egressGib: 0 }).total;
  const nodesAt = (rps: number) => Math.max(sf.minNodes, Math.ceil(rps / sf.capacityPerNodeRps - 1e-12));
  const fits = (n: number) => sf.maxNodes === undefined || n <= sf.maxNodes;

  // Rates where the node count steps up: k x capacity, each holding on (previous edge, edge].
  const edges: number[] = [];
  for (let k = Math.max(sf.minNodes, 1); k * sf.capacityPerNodeRps < maxRps; k++) edges.push(k * sf.capacityPerNodeRps);
  const bounds = [0, ...edges, maxRps];

  const crossings: BreakEvenCrossing[] = [];
  let serverfulCapacityRps: number | null = null;
  let cheaper = serverlessCost(0) < serverfulCost(nodesAt(0));
  for (let i = 0; i + 1 < bounds.length; i++) {
    const a = bounds[i]!;
    const b = bounds[i + 1]!;
    const n = nodesAt(b);
    if (!fits(n)) {
      serverfulCapacityRps = a;
      break;
    }
    const c = serverfulCost(n);
    const cheaperAtStart = serverlessCost(a) < c;
    if (cheaperAtStart !== cheaper && a > 0)
      crossings.push({ rps: a, direction: cheaperAtStart ? "serverless-cheaper" : "serverless-dearer" });
    cheaper = cheaperAtStart;
    if (cheaper && serverlessCost(b) >= c) {
      crossings.push({ rps: firstRateReaching(serverlessCost, c, a, b), direction: "serverless-dearer" });
      cheaper = false;
    }
  }

  const firstDearer = crossings.find((x) => x.direction === "serverless-dearer");
  const breakEvenRps = serverlessCost(0) >= serverfulCost(nodesAt(0)) ? 0 : firstDearer ? firstDearer.rps : null;

  const point = (rps: number, n: number): BreakEvenPoint => ({
    rps,
    nodes: fits(n) ? n : null,
    serverful: fits(n) ? serverfulCost(n) : null,
    serverless: serverlessCost(rps),
  });
  const points: BreakEvenPoint[] = [];
  // Both sides of every step, so a chart draws the staircase's risers.
  const risers = edges.length <= MAX_EDGES ? edges : [];
  for (const e of risers) points.push(point(e, nodesAt(e)), point(e, nodesAt(e) + 1));
  const taken = new Set(risers);
  for (const rps of [
    ...Array.from({ length: input.points }, (_, i) => (maxRps * i) / (input.points - 1)),
    ...crossings.map((x) => x.rps),
  ]) {
    if (!taken.has(rps)) points.push(point(rps, nodesAt(rps)));
    taken.add(rps);
  }
  // Stable sort: at a step edge the left value stays before the right one.
  points.sort((p, q) => p.rps - q.rps);

  return { unit: sf.model.unit, periodSeconds: T, points, crossings, breakEvenRps, serverfulCapacityRps };
}

/** The lowest rate in (lo, hi] where the (non-decreasing) cost reaches `target`. */
function firstRateReaching(cost: (rps: number) => number, target: number, lo: number, hi: number): number {
  for (let i = 0; i < 200 && hi - lo > 1e-9 * Math.max(1, hi); i++) {
    const mid = (lo + hi) / 2;
    if (cost(mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}
