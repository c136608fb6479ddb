// The IoT study (study 000, DevOps vs NoOps) redone on this machine, so its tables
// come from data: the study's four k6 profiles (Linear, Random, Spike, Sprint) as
// presets at a time scale (default 1/30: each 30-minute profile one minute, Sprint
// 10 s), against an HPA-like autoscaled local service and a scale-to-zero local
// function (devops-noops-targets.ts), 3 repetitions, interleaved. The app is Taewa
// (cpu-loop/node-http) with two request names standing in for a heavy endpoint
// (sign-in: hashing) and a light one (a read), not the IoT app itself (which needs
// its own Postgres). `opsbench study run` takes the JSON `opsbench iot-study` prints.
import { devOpsVsNoOpsTargets } from "./devops-noops-targets";
import type { StudyInputDraft } from "./study-spec";
import type { WorkloadInput } from "../workloads/workload-spec";
import { iotLinear, iotRandom, iotSpike, iotSprint } from "../workloads/presets";

export const IOT_STUDY_TIME_SCALE = 1 / 30;
export const IOT_STUDY_SERVICE = "iot-devops-hpa";
export const IOT_STUDY_FUNCTION = "iot-noops-function";
export const IOT_STUDY_PROFILES = { linear: iotLinear, random: iotRandom, spike: iotSpike, sprint: iotSprint } as const;
export const IOT_STUDY_REQUESTS = [
  { name: "users-signin", method: "GET" as const, path: "/?n=60000", headers: {} },
  { name: "users-get", method: "GET" as const, path: "/?n=1000", headers: {} },
];

export interface IotStudyOptions {
  /** The profiles' time scale (1/30 by default; smaller for tests). */
  timeScale?: number;
  repetitions?: number;
  cooldownSeconds?: number;
  seed?: number;
}

export function iotStudy(opts: IotStudyOptions = {}): StudyInputDraft {
  const timeScale = opts.timeScale ?? IOT_STUDY_TIME_SCALE;
  const { service, fn } = devOpsVsNoOpsTargets({ service: IOT_STUDY_SERVICE, fn: IOT_STUDY_FUNCTION }, timeScale);
  const workloads: WorkloadInput[] = Object.entries(IOT_STUDY_PROFILES).map(([profile, preset]) => ({
    name: `iot-${profile}`,
    // Each VU thinks 100 ms between iterations (the study's k6 script slept between requests), so 100 VUs
    // at the peak ask for a few hundred requests a second: enough to make both sides scale out.
    spec: preset({ timeScale, requests: IOT_STUDY_REQUESTS, thinkTime: "100ms", requestTimeout: "10s" }),
  }));
  return {
    name: `IoT study 000 at time scale ${+timeScale.toPrecision(3)}`,
    targets: [service, fn],
    workloads,
    repetitions: opts.repetitions ?? 3,
    order: "interleaved-random",
    ...(opts.seed === undefined ? {} : { seed: opts.seed }),
    // The study waited 15-30 min between runs for the clusters to scale back; compressed as the profiles are.
    cooldownSeconds: opts.cooldownSeconds ?? Math.round(15 * 60 * timeScale),
    baselineWaitSeconds: 30,
  };
}
