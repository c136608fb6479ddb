// The demo: the IoT study (study 000, DevOps vs NoOps) in miniature. Taewa as an
// HPA-like autoscaled service (1-4 replicas, priced as the study's GKE nodes)
// against the same app as a scale-to-zero function (priced as the study's Cloud
// Run), under the study's Spike profile compressed to about 2 minutes a run,
// 2 repetitions each, interleaved. `timeScale` shortens everything further
// (0.1: about 12 s a run) for tests and quick looks. `opsbench demo` runs it, and
// the home page of an empty install offers it.
import { devOpsVsNoOpsTargets } from "./devops-noops-targets";
import type { StudyInputDraft } from "./study-spec";
import type { WorkloadInput } from "../workloads/workload-spec";
import { iotSpike } from "../workloads/presets";

export const DEMO_STUDY_NAME = "demo: DevOps vs NoOps";
export const DEMO_SERVICE = "demo-gke-hpa";
export const DEMO_FUNCTION = "demo-cloud-run";
export const DEMO_WORKLOAD = "demo-iot-spike";

/** The study's Spike profile lasts 30 minutes; the demo's runs last 2 at time scale 1. */
const SPIKE_TO_DEMO = 2 / 30;
/** A run's load at time scale 1, in seconds (for the terminal's "about N minutes"). */
export const DEMO_RUN_SECONDS = 120;

export function demoStudy(timeScale = 1): StudyInputDraft {
  const { service, fn } = devOpsVsNoOpsTargets({ service: DEMO_SERVICE, fn: DEMO_FUNCTION }, SPIKE_TO_DEMO * timeScale);
  const workload: WorkloadInput = {
    name: DEMO_WORKLOAD,
    // 10 VUs, a sudden spike to 100 in the middle, back to 10; each VU thinks 100 ms between requests and a
    // request costs a millisecond or two of CPU, so the plateau is light and the spike makes both scale out.
    spec: iotSpike({
      timeScale: SPIKE_TO_DEMO * timeScale,
      requests: [{ name: "taewa", method: "GET", path: "/?n=100000", headers: {} }],
      thinkTime: "100ms",
      requestTimeout: "10s",
    }),
  };
  return {
    name: DEMO_STUDY_NAME,
    targets: [service, fn],
    workloads: [workload],
    repetitions: 2,
    order: "interleaved-random",
    cooldownSeconds: Math.round(5 * timeScale),
    baselineWaitSeconds: 30,
  };
}
