// The IoT study's (000) two sides on this machine: Taewa as an HPA-like autoscaled
// service (1-4 replicas at 50% CPU, priced as the study's GKE nodes) and as a
// scale-to-zero function (priced as the study's Cloud Run). The demo and the local
// IoT study both compare these. `profileTimeScale` is the load profile's (1/30 makes
// the study's 30 minutes one): the HPA's 15 s sync and 5 min scale-down window and the
// function's idle timeout are compressed with it.
import type { TargetInput } from "../kinds/target-schemas";

const ms = (v: number, min: number) => Math.max(min, Math.round(v));

export function devOpsVsNoOpsTargets(
  names: { service: string; fn: string },
  profileTimeScale: number,
): { service: TargetInput; fn: TargetInput } {
  const service: TargetInput = {
    name: names.service,
    kind: "local-service",
    spec: {
      app: "cpu-loop/node-http",
      minReplicas: 1,
      maxReplicas: 4,
      // The HPA at 50% CPU as in the study; its 15 s sync and 5 min scale-down window compressed as the load is.
      autoscaler: {
        targetCpuPercent: 50,
        syncPeriodMs: ms(15_000 * profileTimeScale, 200),
        scaleDownStabilizationMs: ms(300_000 * profileTimeScale, 0),
      },
      env: {},
      startTimeoutMs: 10_000,
      costModel: { catalog: "iot-study-gke-europe-west3" },
    },
  };
  const fn: TargetInput = {
    name: names.fn,
    kind: "local-function",
    spec: {
      app: "cpu-loop/node-http",
      platform: "cloud-run",
      // Scale to zero; idle instances stop within the run. The study's Cloud Run took 100 requests per instance, but
      // Cloud Run also scales out on CPU, which the local function does not: 10 makes the spike scale it out here.
      concurrency: 10,
      minInstances: 0,
      maxInstances: 4,
      idleTimeoutMs: ms(150_000 * profileTimeScale, 500),
      env: {},
      startTimeoutMs: 10_000,
      costModel: { catalog: "iot-study-cloud-run-europe-west3" },
    },
  };
  return { service, fn };
}
