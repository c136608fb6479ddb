// The planned load of a workload as points to draw before it runs: VUs for the
// closed model, iterations per second for the open model, linear in between
// (k6 ramps stages linearly; a "0s" stage is a jump: two points at one t).
import type { WorkloadSpec } from "./workload-spec";
import { durationSeconds } from "./duration";

export interface LoadPoint {
  /** Seconds after the load starts. */
  t: number;
  vus?: number;
  /** Iterations started per second. */
  rate?: number;
  /** For a rate not yet resolved: its share of a run's maximum throughput. */
  percentOfMax?: number;
}

function staged(start: number, stages: Array<{ duration: string; target: number }>, key: "vus" | "rate", per = 1): LoadPoint[] {
  const points: LoadPoint[] = [{ t: 0, [key]: start / per }];
  let t = 0;
  for (const s of stages) {
    t += durationSeconds(s.duration);
    points.push({ t, [key]: s.target / per });
  }
  return points;
}

/** Empty for a user script (its profile is in its own options) . A shared-iterations run ends when its iterations are done: one point. */
export function loadProfile(spec: WorkloadSpec): LoadPoint[] {
  switch (spec.kind) {
    case "ramping-vus":
      return staged(spec.startVUs, spec.stages, "vus");
    case "constant-vus":
      return [
        { t: 0, vus: spec.vus },
        { t: durationSeconds(spec.duration), vus: spec.vus },
      ];
    case "shared-iterations":
      return [{ t: 0, vus: spec.vus }];
    case "constant-arrival-rate": {
      const end = durationSeconds(spec.duration);
      if (typeof spec.rate !== "number")
        return [
          { t: 0, percentOfMax: spec.rate.percentOfRunMax },
          { t: end, percentOfMax: spec.rate.percentOfRunMax },
        ];
      const rate = spec.rate / durationSeconds(spec.timeUnit);
      return [
        { t: 0, rate },
        { t: end, rate },
      ];
    }
    case "ramping-arrival-rate":
      return staged(spec.startRate, spec.stages, "rate", durationSeconds(spec.timeUnit));
    case "script":
      return [];
  }
}
