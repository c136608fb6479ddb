// The check of what k6 run is about to do (its "plan" line, written by opsbench's output before any VU exists)
// against the run's limits and against what `k6 inspect` said of the same script with the same environment. A
// script can tell the two apart (a random choice, the clock, anything only a real test start has), so inspect
// alone cannot be trusted: the plan is what k6 will actually run. Pure: the runner asks as the line arrives.
import type { K6PlanLine } from "./k6-output-format";
import { peakArrivalRate } from "../workspaces/workspace-limits";

/** The limits a run's k6 must stay within (the run's workspace limits, as the worker resolved them). */
export interface K6RunLimits {
  maxVUs: number;
  maxDurationSeconds: number;
  maxArrivalRate: number;
}

/** What `k6 inspect --execution-requirements` said of the script (the runner's own inspect, with the run's env). */
export interface K6InspectedPlan {
  maxVUs: number | null;
  totalDurationSeconds: number | null;
  options: Record<string, unknown>;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** What the inspected script goes over, each naming the limit (checked before k6 run starts). */
export function inspectedOverLimits(inspected: K6InspectedPlan, limits: K6RunLimits): string[] {
  const out: string[] = [];
  if (inspected.maxVUs !== null && inspected.maxVUs > limits.maxVUs)
    out.push(`k6 inspect says the script uses up to ${inspected.maxVUs} VUs; the run's limit maxVUs is ${limits.maxVUs}`);
  if (inspected.totalDurationSeconds !== null && inspected.totalDurationSeconds > limits.maxDurationSeconds)
    out.push(
      `k6 inspect says the script runs for up to ${round(inspected.totalDurationSeconds)} s; the run's limit maxDurationSeconds is ${limits.maxDurationSeconds}`,
    );
  const rate = peakArrivalRate(inspected.options);
  if (rate > limits.maxArrivalRate)
    out.push(
      `k6 inspect says the script starts up to ${round(rate)} iterations/s; the run's limit maxArrivalRate is ${limits.maxArrivalRate}`,
    );
  return out;
}

/** Every way the plan of k6 run goes above the limits or above inspect's answer; empty when it is within both. */
export function planOverLimits(
  plan: Pick<K6PlanLine, "maxVUs" | "durationSeconds" | "peakArrivalRate">,
  limits: K6RunLimits | null,
  inspected: K6InspectedPlan | null,
): string[] {
  const out: string[] = [];
  if (limits) {
    if (plan.maxVUs > limits.maxVUs) out.push(`k6 run planned ${plan.maxVUs} VUs; the run's limit maxVUs is ${limits.maxVUs}`);
    if (plan.durationSeconds > limits.maxDurationSeconds)
      out.push(`k6 run planned ${round(plan.durationSeconds)} s; the run's limit maxDurationSeconds is ${limits.maxDurationSeconds}`);
    if (plan.peakArrivalRate > limits.maxArrivalRate)
      out.push(`k6 run planned ${round(plan.peakArrivalRate)} iterations/s; the run's limit maxArrivalRate is ${limits.maxArrivalRate}`);
  }
  if (inspected) {
    const lied = "the script tells k6 inspect and k6 run apart";
    if (inspected.maxVUs !== null && plan.maxVUs > inspected.maxVUs)
      out.push(`k6 run planned ${plan.maxVUs} VUs where k6 inspect of the same script said ${inspected.maxVUs} (${lied})`);
    if (inspected.totalDurationSeconds !== null && plan.durationSeconds > inspected.totalDurationSeconds + 1)
      out.push(
        `k6 run planned ${round(plan.durationSeconds)} s where k6 inspect of the same script said ${round(inspected.totalDurationSeconds)} s (${lied})`,
      );
    const rate = peakArrivalRate(inspected.options);
    if (plan.peakArrivalRate > rate + 1e-6)
      out.push(
        `k6 run planned ${round(plan.peakArrivalRate)} iterations/s where k6 inspect of the same script said ${round(rate)} (${lied})`,
      );
  }
  return out;
}

/** A per-second line's VU count above what the plan allowed (the plan is authoritative; this catches the rest). */
export function vusOverPlan(vus: number, allowed: number): string | null {
  return vus > allowed ? `k6 ran ${vus} VUs at once; at most ${allowed} were allowed` : null;
}
