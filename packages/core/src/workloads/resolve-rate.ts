// "Stable at X% of the measured maximum" (study 004): a constant-arrival-rate
// workload whose rate is a share of another run's maximum throughput, made
// concrete when the run is created, and recorded with where it came from.
// The maximum is in requests per second; k6's arrival rate is in iterations, so
// the maximum is divided by the requests one iteration sent in the reference run
// (or, with `request`, that request's own maximum by its count per iteration).
// The reference run must have saturated (runs/saturation.ts): the maximum of a run whose load never
// reached the target's limit is only the load it was offered, and X% of it says nothing about capacity.
import type { RateSource, WorkloadSpec } from "./workload-spec";
import { durationSeconds } from "./duration";

/** The run whose maximum throughput the spec's rate depends on, if any. */
export function rateDependsOnRun(spec: WorkloadSpec): { runId: string; percentOfRunMax: number; request?: string | undefined } | null {
  return spec.kind === "constant-arrival-rate" && typeof spec.rate !== "number" ? spec.rate : null;
}

/** What the reference run measured: its maximum (successful req/s, of every request or of the named one) and its counts. */
export interface ReferenceMaximum {
  /** Highest 10 s moving average of successful responses per second (all requests, or only the named request's). */
  maxThroughputRps: number;
  /** Requests the reference run sent (all, or of the named request). */
  requests: number;
  /** Iterations the reference run completed (k6's iterations metric). */
  iterations: number;
  /** Whether the reference run found the target's limit, and why (core's runs/saturation.ts decides). */
  saturation: { saturated: boolean; why: string };
}

const round = (v: number) => Math.round(v * 1e4) / 1e4;

/**
 * The spec with its rate resolved from the reference run, which must have saturated (else an Error names the run and why): iterations/s = max req/s x percent / 100 /
 * (requests per iteration), as an integer rate per timeUnit (rounded, at least 1). The rate's source is
 * recorded (rateSource): the percent asked, the reference maximum in req/s, requests per iteration, the
 * iterations/s it gives and the iterations/s offered after rounding. Specs without a relative rate come back unchanged.
 */
export function resolveRate(spec: WorkloadSpec, ref: ReferenceMaximum): WorkloadSpec {
  if (spec.kind !== "constant-arrival-rate" || typeof spec.rate === "number") return spec;
  const { percentOfRunMax, runId, request } = spec.rate;
  const what = `${percentOfRunMax}% of run ${runId}'s maximum${request ? ` of request "${request}"` : ""}`;
  if (!(ref.maxThroughputRps > 0) || !Number.isFinite(ref.maxThroughputRps)) {
    throw new Error(`cannot resolve ${what}: its maximum throughput is ${ref.maxThroughputRps} req/s`);
  }
  if (!ref.saturation.saturated) {
    throw new Error(
      `cannot resolve ${what}: run ${runId} did not saturate (${ref.saturation.why}), so its maximum ${ref.maxThroughputRps} req/s is the load it was offered, not the target's capacity; take the maximum from a run that went past the limit (a step ramp until successful req/s stop rising, latency climbs or iterations drop)`,
    );
  }
  if (!(ref.iterations > 0) || !(ref.requests > 0)) {
    throw new Error(
      `cannot resolve ${what}: requests per iteration are unknown (it recorded ${ref.requests} request${ref.requests === 1 ? "" : "s"}${request ? ` named "${request}"` : ""} and ${ref.iterations} iterations)`,
    );
  }
  const requestsPerIteration = ref.requests / ref.iterations;
  const iterationsPerSecond = (ref.maxThroughputRps * percentOfRunMax) / 100 / requestsPerIteration;
  const unit = durationSeconds(spec.timeUnit);
  const rate = Math.max(1, Math.round(iterationsPerSecond * unit));
  return {
    ...spec,
    rate,
    rateSource: {
      percentOfRunMax,
      runId,
      ...(request === undefined ? {} : { request }),
      maxThroughputRps: round(ref.maxThroughputRps),
      requestsPerIteration: round(requestsPerIteration),
      iterationsPerSecond: round(iterationsPerSecond),
      offeredIterationsPerSecond: round(rate / unit),
    },
  };
}

/** The rate's source in words (run page, events): "80% of run 1a2b3c4d's maximum 120 req/s ÷ 3 requests per iteration = 32 iterations/s". */
export function describeRateSource(s: RateSource): string {
  const rpi = s.requestsPerIteration;
  return `${s.percentOfRunMax}% of run ${s.runId.slice(0, 8)}'s maximum ${s.maxThroughputRps} req/s${s.request ? ` of request "${s.request}"` : ""}${
    rpi === undefined ? "" : ` ÷ ${rpi} request${rpi === 1 ? "" : "s"} per iteration = ${s.iterationsPerSecond} iterations/s`
  }${s.offeredIterationsPerSecond === undefined ? "" : ` (offered ${s.offeredIterationsPerSecond} iterations/s)`}`;
}
