// A generated workload's k6 `options`: one scenario ("main") with the
// workload's executor, thresholds, and the trend stats opsbench checks its own
// summary against.
import type { GeneratedWorkloadSpec } from "./workload-spec";

/** The k6 trend stats opsbench asks k6 for, so its own summary can be checked against ours. */
export const K6_SUMMARY_TREND_STATS = "avg,min,med,max,p(90),p(95),p(99)";

/** Thrown when a "percent of a run's maximum" rate reaches the compiler unresolved. */
export class UnresolvedRateError extends Error {}

const withGracefulStop = (spec: { gracefulStop?: string }) => (spec.gracefulStop ? { gracefulStop: spec.gracefulStop } : {});

export function scenarioOptions(spec: GeneratedWorkloadSpec): Record<string, unknown> {
  switch (spec.kind) {
    case "ramping-vus":
      return {
        executor: spec.kind,
        startVUs: spec.startVUs,
        stages: spec.stages,
        gracefulRampDown: spec.gracefulRampDown,
        ...withGracefulStop(spec),
      };
    case "constant-vus":
      return { executor: spec.kind, vus: spec.vus, duration: spec.duration, ...withGracefulStop(spec) };
    case "shared-iterations":
      return { executor: spec.kind, vus: spec.vus, iterations: spec.iterations, maxDuration: spec.maxDuration, ...withGracefulStop(spec) };
    case "constant-arrival-rate":
      if (typeof spec.rate !== "number") {
        throw new UnresolvedRateError(
          `the rate is ${spec.rate.percentOfRunMax}% of run ${spec.rate.runId}'s maximum throughput and must be resolved (resolveRate) when the run is created`,
        );
      }
      return {
        executor: spec.kind,
        rate: spec.rate,
        timeUnit: spec.timeUnit,
        duration: spec.duration,
        preAllocatedVUs: spec.preAllocatedVUs,
        maxVUs: spec.maxVUs ?? spec.preAllocatedVUs,
        ...withGracefulStop(spec),
      };
    case "ramping-arrival-rate":
      return {
        executor: spec.kind,
        startRate: spec.startRate,
        timeUnit: spec.timeUnit,
        stages: spec.stages,
        preAllocatedVUs: spec.preAllocatedVUs,
        maxVUs: spec.maxVUs ?? spec.preAllocatedVUs,
        ...withGracefulStop(spec),
      };
  }
}

/** The k6 options object of a generated workload (what `k6 inspect` reports back). */
export function compileK6Options(spec: GeneratedWorkloadSpec): Record<string, unknown> {
  return {
    scenarios: { main: scenarioOptions(spec) },
    thresholds: spec.thresholds,
    summaryTrendStats: K6_SUMMARY_TREND_STATS.split(","),
    ...(spec.noConnectionReuse ? { noConnectionReuse: true } : {}),
    ...(spec.setupTimeout ? { setupTimeout: spec.setupTimeout } : {}),
  };
}
