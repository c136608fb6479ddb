// "Stable at X% of the measured maximum" (study 004): a constant-arrival-rate
// workload whose rate is a share of another run's maximum throughput, made
// concrete when the run is created, and recorded with where it came from.
import type { WorkloadSpec } from "../workload-spec";
import { durationSeconds } from "./duration";

/** The run whose maximum throughput the spec's rate depends on, if any. */
export function rateDependsOnRun(spec: WorkloadSpec): { runId: string; percentOfRunMax: number } | null {
  return spec.kind === "constant-arrival-rate" && typeof spec.rate !== "number" ? spec.rate : null;
}

/**
 * The spec with its rate resolved from the measured maximum (req/s, e.g. the
 * summary's maxThroughput.rps): rate = max x percent per timeUnit, rounded, at
 * least 1. Specs without a relative rate come back unchanged.
 */
export function resolveRate(spec: WorkloadSpec, maxThroughputRps: number): WorkloadSpec {
  if (spec.kind !== "constant-arrival-rate" || typeof spec.rate === "number") return spec;
  if (!(maxThroughputRps > 0) || !Number.isFinite(maxThroughputRps)) {
    throw new Error(
      `cannot resolve ${spec.rate.percentOfRunMax}% of run ${spec.rate.runId}'s maximum: its maximum throughput is ${maxThroughputRps} req/s`,
    );
  }
  const perUnit = ((maxThroughputRps * spec.rate.percentOfRunMax) / 100) * durationSeconds(spec.timeUnit);
  return { ...spec, rate: Math.max(1, Math.round(perUnit)), rateSource: { ...spec.rate, maxThroughputRps } };
}
