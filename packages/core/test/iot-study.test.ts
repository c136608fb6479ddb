import { describe, expect, it } from "vitest";
import { demoStudy } from "../src/studies/demo-study";
import { IOT_STUDY_FUNCTION, IOT_STUDY_SERVICE, iotStudy } from "../src/studies/iot-study";
import { studyInput } from "../src/studies/study-spec";
import { plannedSeconds } from "../src/workloads/workload-spec";

describe("the local IoT study", () => {
  it("is study 000's four profiles at 1/30 (30 min -> 60 s, Sprint 5 min -> 10 s), service vs function, 3 interleaved repetitions", () => {
    const s = studyInput.parse(iotStudy());
    expect(s.targets.map((t) => (typeof t === "string" ? t : [t.name, t.kind]))).toEqual([
      [IOT_STUDY_SERVICE, "local-service"],
      [IOT_STUDY_FUNCTION, "local-function"],
    ]);
    const load = Object.fromEntries(s.workloads.map((w) => (typeof w === "string" ? [w, 0] : [w.name, plannedSeconds(w.spec)])));
    expect(load).toEqual({ "iot-linear": 60, "iot-random": 60, "iot-spike": 60, "iot-sprint": 10 });
    expect(s).toMatchObject({ repetitions: 3, order: "interleaved-random", cooldownSeconds: 30 });
    // The HPA's 15 s sync and 5 min scale-down window, compressed 30 times.
    const service = s.targets[0];
    expect(typeof service !== "string" && service.kind === "local-service" && service.spec.autoscaler).toMatchObject({
      syncPeriodMs: 500,
      scaleDownStabilizationMs: 10_000,
    });
    expect(studyInput.parse(iotStudy({ timeScale: 1 / 600 })).cooldownSeconds).toBe(2);
  });

  it("shares its targets with the demo, at the demo's own time scale", () => {
    const demo = studyInput.parse(demoStudy(1));
    const service = demo.targets[0];
    // The demo's Spike profile lasts 2 of the study's 30 minutes: the HPA's clocks compressed 15 times.
    expect(typeof service !== "string" && service.kind === "local-service" && service.spec.autoscaler).toMatchObject({
      syncPeriodMs: 1000,
      scaleDownStabilizationMs: 20_000,
    });
  });
});
