import { describe, expect, it } from "vitest";
import {
  compileK6Options,
  compileK6Script,
  concurrencySweep,
  durationSeconds,
  findPreset,
  formatDuration,
  iotLinear,
  iotRandom,
  iotSpike,
  iotSprint,
  loadProfile,
  payloadSweep,
  plannedSeconds,
  describeRateSource,
  resolveRate,
  stableAtPercent,
  stepRamp,
  UnresolvedRateError,
  WORKLOAD_PRESETS,
  type GeneratedWorkloadSpec,
  type RateSource,
  type WorkloadSpec,
} from "../src/index";

type Stage = { duration: string; target: number };
const main = (spec: WorkloadSpec) => compileK6Options(spec as GeneratedWorkloadSpec).scenarios as { main: Record<string, unknown> };
const stagesOf = (spec: WorkloadSpec) => main(spec).main.stages as Stage[];
/** [seconds, target] pairs: k6 normalises duration text, the seconds are what must match. */
const secs = (stages: Stage[]) => stages.map((s) => [durationSeconds(s.duration), s.target]);
/** The options object exactly as it is written into the script k6 runs. */
const scriptOptions = (spec: WorkloadSpec) => JSON.parse(/export const options = (\{[\s\S]*?\n\});/.exec(compileK6Script(spec))![1]!);

describe("study 000 presets compile to exactly their stages", () => {
  it("Linear: 0 -> 100 VUs over 30 min", () => {
    const spec = iotLinear();
    expect(main(spec).main).toMatchObject({ executor: "ramping-vus", startVUs: 0 });
    expect(stagesOf(spec)).toEqual([{ duration: "30m", target: 100 }]);
    expect(scriptOptions(spec).scenarios.main.stages).toEqual([{ duration: "30m", target: 100 }]);
  });

  it("Random: 60 at 7 min, 30 at 14, 100 at 21, 40 at 28, 0 at 30, linear in between", () => {
    const stages = stagesOf(iotRandom());
    expect(secs(stages)).toEqual([
      [420, 60],
      [420, 30],
      [420, 100],
      [420, 40],
      [120, 0],
    ]);
    // Cumulative times are the study's: 7, 14, 21, 28, 30 minutes.
    let t = 0;
    expect(
      stages.map((s) => {
        t += durationSeconds(s.duration);
        return t / 60;
      }),
    ).toEqual([7, 14, 21, 28, 30]);
  });

  it("Spike: 10 VUs reached at 1 min, 100 from 14 to 16 min, 10 for 13 more min, then down to 0", () => {
    const spec = iotSpike();
    expect(secs(stagesOf(spec))).toEqual([
      [60, 10],
      [780, 10],
      [0, 100],
      [120, 100],
      [0, 10],
      [780, 10],
      [60, 0],
    ]);
    // The load at given minutes, from the profile points.
    const at = (minute: number) => {
      const pts = loadProfile(spec);
      const t = minute * 60;
      const i = pts.findIndex((p) => p.t > t);
      const [a, b] = [pts[i - 1]!, pts[i]!];
      return a.vus! + ((b.vus! - a.vus!) * (t - a.t)) / (b.t - a.t);
    };
    expect([at(0.5), at(1), at(10), at(14.5), at(15.9), at(16.5), at(28), at(29.5)]).toEqual([5, 10, 10, 100, 100, 10, 10, 5]);
    expect(plannedSeconds(spec)).toBe(1800);
  });

  it("Sprint: 5 minutes, 0 -> 100 VUs (inferred from the study's figures)", () => {
    expect(secs(stagesOf(iotSprint()))).toEqual([[300, 100]]);
  });

  it("all use the study's 1-minute request timeout, and the requests given", () => {
    const spec = iotSpike({ requests: [{ name: "signin", method: "POST", path: "/api/users/signin", body: "{}" }] });
    expect(spec).toMatchObject({ requestTimeout: "60s", requests: [{ name: "signin", method: "POST", path: "/api/users/signin" }] });
    const linear = iotLinear();
    expect(linear.kind === "ramping-vus" && linear.requests).toEqual([{ name: "home", method: "GET", path: "/", headers: {} }]);
  });

  it("a time scale multiplies every duration of the profile (stages and ramp-down), not the VUs", () => {
    for (const preset of [iotLinear, iotRandom, iotSpike, iotSprint]) {
      const full = preset();
      for (const f of [0.1, 0.01, 2]) {
        const scaled = preset({ timeScale: f });
        expect(secs(stagesOf(scaled))).toEqual(secs(stagesOf(full)).map(([d, v]) => [Math.round(d! * f * 1000) / 1000, v]));
        expect(durationSeconds(main(scaled).main.gracefulRampDown as string)).toBeCloseTo(30 * f, 3);
        expect(plannedSeconds(scaled)).toBeCloseTo(plannedSeconds(full) * f, 3);
      }
    }
    // 0.1 makes the 30-minute Spike 3 minutes; 0.01 makes it 18 s.
    expect(stagesOf(iotSpike({ timeScale: 0.1 })).map((s) => s.duration)).toEqual(["6s", "1m18s", "0s", "12s", "0s", "1m18s", "6s"]);
    expect(plannedSeconds(iotSpike({ timeScale: 0.01 }))).toBe(18);
    const shortSpike = iotSpike({ timeScale: 0.01 });
    expect(shortSpike.kind === "ramping-vus" && shortSpike.requestTimeout).toBe("60s");
  });

  it("refuses a bad time scale by name", () => {
    expect(() => iotLinear({ timeScale: 0 })).toThrow(/timeScale/);
    expect(() => iotLinear({ timeScale: -1 })).toThrow(/timeScale/);
  });
});

describe("closed-loop sweeps (studies 001, 002, 003)", () => {
  it("concurrency sweep: one shared-iterations workload per level, N requests each, with repetitions", () => {
    const sweep = concurrencySweep();
    expect(sweep.map((w) => w.suffix)).toEqual(["c1", "c5", "c10", "c20", "c50", "c100"]);
    expect(sweep.every((w) => w.repetitions === 3)).toBe(true);
    expect(sweep.map((w) => main(w.spec).main)).toEqual(
      [1, 5, 10, 20, 50, 100].map((vus) => ({ executor: "shared-iterations", vus, iterations: 10_000, maxDuration: "30m" })),
    );
  });

  it("concurrency sweep for a duration (Fortio) uses constant-vus; connection options pass through", () => {
    const sweep = concurrencySweep({
      levels: [4, 8],
      duration: "300s",
      timeScale: 0.1,
      repetitions: 10,
      reconnectEvery: 100,
      noConnectionReuse: true,
    });
    expect(sweep.map((w) => main(w.spec).main)).toEqual([
      { executor: "constant-vus", vus: 4, duration: "30s" },
      { executor: "constant-vus", vus: 8, duration: "30s" },
    ]);
    expect(sweep[0]!.repetitions).toBe(10);
    expect(sweep[0]!.spec).toMatchObject({ reconnectEvery: 100, noConnectionReuse: true });
    expect(compileK6Options(sweep[0]!.spec as GeneratedWorkloadSpec).noConnectionReuse).toBe(true);
    // A time scale shortens a request-count sweep too, never below one request per VU.
    expect(concurrencySweep({ levels: [100], timeScale: 0.001 }).map((w) => main(w.spec).main.iterations)).toEqual([100]);
  });

  it("payload sweep: 0..8192 B bodies of exactly that size", () => {
    const sweep = payloadSweep();
    expect(sweep.map((w) => w.suffix)).toEqual(["0b", "512b", "1024b", "2048b", "4096b", "8192b"]);
    for (const w of sweep) {
      expect(main(w.spec).main).toMatchObject({ executor: "shared-iterations", vus: 1, iterations: 10_000 });
      const bytes = Number(w.suffix.replace("b", ""));
      expect(w.spec.kind !== "script" && w.spec.requests[0]).toMatchObject({ method: "POST", body: `{{payload ${bytes}}}` });
      expect(compileK6Script(w.spec)).toContain(`obPayload(${bytes})`);
    }
  });
});

describe("open model (study 004)", () => {
  it("step ramp: a jump every 2 minutes for 20 minutes, time-scalable", () => {
    const spec = stepRamp({ startRate: 20, stepRate: 5 });
    const m = main(spec).main;
    expect(m).toMatchObject({ executor: "ramping-arrival-rate", startRate: 20, timeUnit: "1s", preAllocatedVUs: 50, maxVUs: 1000 });
    const stages = m.stages as Stage[];
    expect(stages.filter((s) => s.duration !== "0s").map((s) => [durationSeconds(s.duration), s.target])).toEqual(
      Array.from({ length: 10 }, (_, i) => [120, 20 + 5 * i]),
    );
    expect(plannedSeconds(spec)).toBe(1200);
    expect(plannedSeconds(stepRamp({ timeScale: 0.1 }))).toBe(120);
    const profile = loadProfile(spec);
    expect(profile[0]).toEqual({ t: 0, rate: 20 });
    expect(profile.at(-1)).toEqual({ t: 1200, rate: 65 });
    // A step is a jump: two points at the same moment.
    expect(profile.filter((p) => p.t === 120).map((p) => p.rate)).toEqual([20, 25]);
  });

  it("stable at 80% of a measured maximum: resolved when the run is created, recorded with its source", () => {
    const runId = "3b9f6a52-8c1d-4f7e-9a0b-2c4d6e8f0a1b";
    const saturated = { saturated: true, why: "a knee" };
    const spec = stableAtPercent({ runId });
    expect(spec).toMatchObject({ kind: "constant-arrival-rate", rate: { percentOfRunMax: 80, runId }, duration: "10m" });
    expect(() => compileK6Script(spec)).toThrow(UnresolvedRateError);
    expect(loadProfile(spec)).toEqual([
      { t: 0, percentOfMax: 80 },
      { t: 600, percentOfMax: 80 },
    ]);

    // The maximum is in req/s; the rate is in iterations. A reference run of 1,000 iterations and 3,000 requests
    // sent 3 requests an iteration: 80% of 80.5 req/s is 64.4 req/s, 21.47 iterations/s (not 64, 3x too many requests).
    const resolved = resolveRate(spec, { maxThroughputRps: 80.5, requests: 3000, iterations: 1000, saturation: saturated });
    expect(main(resolved).main).toMatchObject({ executor: "constant-arrival-rate", rate: 21, timeUnit: "1s", duration: "10m" });
    expect(resolved).toMatchObject({
      rateSource: {
        percentOfRunMax: 80,
        runId,
        maxThroughputRps: 80.5,
        requestsPerIteration: 3,
        iterationsPerSecond: 21.4667,
        offeredIterationsPerSecond: 21,
      },
    });
    expect(describeRateSource((resolved as { rateSource: RateSource }).rateSource)).toBe(
      `80% of run ${runId.slice(0, 8)}'s maximum 80.5 req/s ÷ 3 requests per iteration = 21.4667 iterations/s (offered 21 iterations/s)`,
    );
    // One request per iteration: the iteration rate is the request rate.
    const one = resolveRate(spec, { maxThroughputRps: 80.5, requests: 500, iterations: 500, saturation: saturated });
    expect(one.kind === "constant-arrival-rate" && one.rate).toBe(64);
    // A named request's own maximum, sent twice an iteration: 80% of 50 req/s / 2 = 20 iterations/s.
    const named = resolveRate({ ...spec, rate: { percentOfRunMax: 80, runId, request: "checkout" } } as WorkloadSpec, {
      maxThroughputRps: 50,
      requests: 2000,
      iterations: 1000,
      saturation: saturated,
    });
    expect(named).toMatchObject({ rate: 20, rateSource: { request: "checkout", requestsPerIteration: 2, iterationsPerSecond: 20 } });
    // Per-minute units keep a low rate precise; a resolved spec resolves to itself.
    const perMinute = resolveRate({ ...spec, timeUnit: "1m" } as WorkloadSpec, {
      maxThroughputRps: 2.5,
      requests: 10,
      iterations: 10,
      saturation: saturated,
    });
    expect(perMinute.kind === "constant-arrival-rate" && perMinute.rate).toBe(120);
    expect(resolveRate(resolved, { maxThroughputRps: 1000, requests: 1, iterations: 1, saturation: saturated })).toBe(resolved);
    expect(() => resolveRate(spec, { maxThroughputRps: 0, requests: 1, iterations: 1, saturation: saturated })).toThrow(
      /maximum throughput is 0/,
    );
    expect(() => resolveRate(spec, { maxThroughputRps: 10, requests: 100, iterations: 0, saturation: saturated })).toThrow(
      /requests per iteration are unknown/,
    );
    // A maximum from a run that never reached a limit is the load it was offered: refused, naming the run and why.
    const offeredOnly = { saturated: false, why: "no limit reached: successful req/s followed the offered load" };
    expect(() => resolveRate(spec, { maxThroughputRps: 80.5, requests: 500, iterations: 500, saturation: offeredOnly })).toThrow(
      new RegExp(`run ${runId} did not saturate \\(no limit reached: successful req/s followed the offered load\\)`),
    );
    // @ts-expect-error the run to take the maximum from is missing on purpose
    expect(() => stableAtPercent({})).toThrow(/runId/);
  });
});

describe("the preset catalog", () => {
  it("builds every preset from its example, each with a profile to draw", () => {
    expect(WORKLOAD_PRESETS.map((p) => p.name)).toEqual([
      "iot-linear",
      "iot-random",
      "iot-spike",
      "iot-sprint",
      "concurrency-sweep",
      "payload-sweep",
      "step-ramp",
      "stable-at-percent",
    ]);
    for (const p of WORKLOAD_PRESETS) {
      const built = p.build({ ...p.example, timeScale: 0.1 });
      expect(built.length).toBeGreaterThan(0);
      for (const w of built) {
        expect(w.name.startsWith(p.name)).toBe(true);
        expect(loadProfile(w.spec).length).toBeGreaterThan(0);
      }
    }
    expect(
      findPreset("concurrency-sweep")!
        .build({})
        .map((w) => w.name),
    ).toContain("concurrency-sweep-c50");
    expect(findPreset("nope")).toBeNull();
  });

  it("formats durations in k6's units", () => {
    expect([1800, 90, 1.2, 0, 0.6, 3600 + 61].map(formatDuration)).toEqual(["30m", "1m30s", "1s200ms", "0s", "600ms", "1h1m1s"]);
  });
});
