// Presets: the load patterns of the five studies as functions returning
// workload specs. `timeScale` multiplies every duration of the profile (stages,
// ramp-downs, steps; 0.1 makes a 30-minute profile 3 minutes; iteration counts
// scale too); request timeouts and think time are not scaled. Each preset takes
// the requests to send (default: GET /) and optional program fields.
import { z } from "zod";
import { workloadSpec, type WorkloadSpec } from "./workload-spec";
import { durationSeconds, formatDuration, k6Duration } from "./duration";

/** Program fields a preset passes through to its workloads (validated with the whole spec). */
const programFields = {
  requests: z.array(z.unknown()).min(1).optional(),
  mix: z.unknown().optional(),
  pools: z.unknown().optional(),
  setup: z.unknown().optional(),
  thinkTime: z.unknown().optional(),
  thresholds: z.unknown().optional(),
  requestTimeout: z.unknown().optional(),
  noConnectionReuse: z.boolean().optional(),
  reconnectEvery: z.number().int().min(1).optional(),
};
const timeScale = z.number().gt(0).max(100).default(1);
const common = { timeScale, ...programFields };

const DEFAULT_REQUESTS = [{ name: "home", method: "GET", path: "/" }];

type ProgramFields = { [K in keyof typeof programFields]?: unknown };

function program(p: ProgramFields) {
  const out: Record<string, unknown> = { requests: p.requests ?? DEFAULT_REQUESTS };
  for (const key of Object.keys(programFields) as Array<keyof ProgramFields>)
    if (key !== "requests" && p[key] !== undefined) out[key] = p[key];
  return out;
}

const scaled = (d: string, f: number) => formatDuration(durationSeconds(d) * f);
const stages = (list: Array<[string, number]>, f: number) => list.map(([d, target]) => ({ duration: scaled(d, f), target }));

// ---- Study 000 (IoT platform): ramping VUs, linear transitions, request timeout 1 min.

/** The exact stages of study 000's profiles, at time scale 1. */
export const IOT_STAGES = {
  /** "A 30min linear increase to a target of 100 VUs." */
  linear: [["30m", 100]],
  /** "60 VUs at 7min, 30 VUs at 14min, 100 VUs at 21min, 40 VUs at 28min and 0 VUs after 30min. Transitions ... are linear." */
  random: [
    ["7m", 60],
    ["7m", 30],
    ["7m", 100],
    ["7m", 40],
    ["2m", 0],
  ],
  /**
   * "After 1min a plateau of 10 VUs is reached. Between 14min and 16min a spike of 100 VUs is created. Following
   * the spike, the plateau of 10 VUs is held for another 13min before the VUs are linearly decreased to 0."
   * The text gives no ramp for the spike itself; a spike is sudden, so it jumps ("0s" stages) to 100 at 14:00
   * and back to 10 at 16:00. The final decrease takes the last minute of the 30-minute run.
   */
  spike: [
    ["1m", 10],
    ["13m", 10],
    ["0s", 100],
    ["2m", 100],
    ["0s", 10],
    ["13m", 10],
    ["1m", 0],
  ],
  /**
   * Sprint (Sensors-Add only): the text says only "a five minute experiment run". Inferred: Linear compressed to
   * five minutes (0 -> 100 VUs). By Little's law the slow deployments (OW: 698 requests at 22.9 s average, GCR:
   * 664 at 22.0 s) kept ~50 requests in flight on average over the 300 s, which is the mean of a 0 -> 100 ramp;
   * GKE-80's 38,535 requests at 137 ms need at least ~18 VUs on average, more than the first five minutes of
   * Linear (~8) could give.
   */
  sprint: [["5m", 100]],
} satisfies Record<string, Array<[string, number]>>;

const iotParams = z.object(common).strict();
type IotParams = z.input<typeof iotParams>;

function iot(profile: keyof typeof IOT_STAGES, params: IotParams): WorkloadSpec {
  const p = iotParams.parse(params);
  return workloadSpec.parse({
    kind: "ramping-vus",
    startVUs: 0,
    stages: stages(IOT_STAGES[profile], p.timeScale),
    // k6's default, which the study ran with; scaled with the profile.
    gracefulRampDown: scaled("30s", p.timeScale),
    requestTimeout: "60s",
    ...program(p),
  });
}
export const iotLinear = (params: IotParams = {}) => iot("linear", params);
export const iotRandom = (params: IotParams = {}) => iot("random", params);
export const iotSpike = (params: IotParams = {}) => iot("spike", params);
export const iotSprint = (params: IotParams = {}) => iot("sprint", params);

// ---- Studies 001/002: closed loop at fixed concurrency.

const concurrencyParams = z
  .object({
    ...common,
    levels: z.array(z.number().int().min(1).max(100_000)).min(1).default([1, 5, 10, 20, 50, 100]),
    /** Run each level this often (study 001: 10); a study schedules the repetitions. */
    repetitions: z.number().int().min(1).max(100).default(3),
    /** Requests per trial (ab -n; study 001: 10,000 or 50,000). Ignored when duration is given. */
    iterations: z.number().int().min(1).default(10_000),
    /** Seconds per trial instead of a request count (Fortio -t; study 002: 300 s). */
    duration: k6Duration.optional(),
  })
  .strict();
export type ConcurrencySweepParams = z.input<typeof concurrencyParams>;

export interface SweepWorkload {
  /** Suffix naming this member of the sweep, e.g. "c10" or "1024b". */
  suffix: string;
  spec: WorkloadSpec;
  repetitions: number;
}

/** One workload per concurrency level: shared-iterations (N requests) or constant-vus (T seconds). */
export function concurrencySweep(params: ConcurrencySweepParams = {}): SweepWorkload[] {
  const p = concurrencyParams.parse(params);
  return p.levels.map((level) => ({
    suffix: `c${level}`,
    repetitions: p.repetitions,
    spec: workloadSpec.parse(
      p.duration
        ? { kind: "constant-vus", vus: level, duration: scaled(p.duration, p.timeScale), ...program(p) }
        : { kind: "shared-iterations", vus: level, iterations: Math.max(level, Math.round(p.iterations * p.timeScale)), ...program(p) },
    ),
  }));
}

// ---- Study 003: request payload sizes.

const payloadParams = z
  .object({
    ...common,
    sizes: z.array(z.number().int().min(0).max(10_000_000)).min(1).default([0, 512, 1024, 2048, 4096, 8192]),
    repetitions: z.number().int().min(1).max(100).default(3),
    /** Calls per size (study 003: 10,000). */
    iterations: z.number().int().min(1).default(10_000),
    vus: z.number().int().min(1).max(100_000).default(1),
    method: z.enum(["POST", "PUT", "PATCH"]).default("POST"),
    path: z.string().startsWith("/").default("/"),
  })
  .strict();
export type PayloadSweepParams = z.input<typeof payloadParams>;

/** One workload per payload size; each request carries exactly that many bytes. */
export function payloadSweep(params: PayloadSweepParams = {}): SweepWorkload[] {
  const p = payloadParams.parse(params);
  return p.sizes.map((bytes) => ({
    suffix: `${bytes}b`,
    repetitions: p.repetitions,
    spec: workloadSpec.parse({
      kind: "shared-iterations",
      vus: p.vus,
      iterations: Math.max(p.vus, Math.round(p.iterations * p.timeScale)),
      ...program(p),
      requests: p.requests ?? [
        {
          name: `payload-${bytes}b`,
          method: p.method,
          path: p.path,
          body: `{{payload ${bytes}}}`,
          headers: { "Content-Type": "application/octet-stream" },
        },
      ],
    }),
  }));
}

// ---- Study 004: find the maximum throughput, then hold a share of it.

const stepRampParams = z
  .object({
    ...common,
    /** Requests per second of the first step, and added by each further step. */
    startRate: z.number().int().min(1).default(10),
    stepRate: z.number().int().min(1).default(10),
    /** Study 004: a step every 2 min for 20 min. */
    steps: z.number().int().min(1).max(1000).default(10),
    stepDuration: k6Duration.default("2m"),
    preAllocatedVUs: z.number().int().min(1).default(50),
    maxVUs: z.number().int().min(1).default(1000),
  })
  .strict();
export type StepRampParams = z.input<typeof stepRampParams>;

/** Open-model rate in steps (jumps, then held), to find the maximum throughput (highest 10 s moving average). */
export function stepRamp(params: StepRampParams = {}): WorkloadSpec {
  const p = stepRampParams.parse(params);
  const list: Array<{ duration: string; target: number }> = [];
  for (let i = 0; i < p.steps; i++) {
    const rate = p.startRate + i * p.stepRate;
    if (i > 0) list.push({ duration: "0s", target: rate });
    list.push({ duration: scaled(p.stepDuration, p.timeScale), target: rate });
  }
  return workloadSpec.parse({
    kind: "ramping-arrival-rate",
    startRate: p.startRate,
    timeUnit: "1s",
    stages: list,
    preAllocatedVUs: p.preAllocatedVUs,
    maxVUs: Math.max(p.maxVUs, p.preAllocatedVUs),
    ...program(p),
  });
}

const stableParams = z
  .object({
    ...common,
    /** The step-ramp run whose maximum throughput sets the rate; it must have saturated (docs/cost.md, "Capacity"). */
    runId: z.uuid({
      error: (i) =>
        i.input === undefined
          ? "required: the id of the step-ramp run whose maximum throughput sets the rate"
          : "must be a run id (a UUID)",
    }),
    percent: z.number().gt(0).max(1000).default(80),
    /** Study 004: 10 minutes. */
    duration: k6Duration.default("10m"),
    preAllocatedVUs: z.number().int().min(1).default(50),
    maxVUs: z.number().int().min(1).default(1000),
  })
  .strict();
export type StableAtPercentParams = z.input<typeof stableParams>;

/**
 * A constant arrival rate at `percent` of a run's measured maximum, resolved when the run is created (resolve-rate.ts),
 * and refused then when that run did not saturate: its maximum would be the load it was offered, not a capacity.
 */
export function stableAtPercent(params: StableAtPercentParams): WorkloadSpec {
  const p = stableParams.parse(params);
  return workloadSpec.parse({
    kind: "constant-arrival-rate",
    rate: { percentOfRunMax: p.percent, runId: p.runId },
    timeUnit: "1s",
    duration: scaled(p.duration, p.timeScale),
    preAllocatedVUs: p.preAllocatedVUs,
    maxVUs: Math.max(p.maxVUs, p.preAllocatedVUs),
    ...program(p),
  });
}

// ---- The catalog (CLI `workload preset`, GET /api/v1/workloads/presets).

export interface PresetWorkload {
  /** The workload's name: the preset's, or with a sweep member's suffix. */
  name: string;
  spec: WorkloadSpec;
  repetitions?: number;
}

export interface WorkloadPreset {
  name: string;
  study: string;
  description: string;
  /** The parameters' schema (zod); all but stable-at-percent's runId have defaults. */
  params: z.ZodType;
  /** Parameters without a default, which the user must give (stable-at-percent: the run to take the maximum from). */
  requires: string[];
  /** Parameters for a preview when the user has given none (a placeholder for each required one). */
  example: Record<string, unknown>;
  build(params: Record<string, unknown>): PresetWorkload[];
}

const single = (name: string, fn: (p: never) => WorkloadSpec) => (params: Record<string, unknown>) => [{ name, spec: fn(params as never) }];
const sweep = (name: string, fn: (p: never) => SweepWorkload[]) => (params: Record<string, unknown>) =>
  fn(params as never).map((w) => ({ name: `${name}-${w.suffix}`, spec: w.spec, repetitions: w.repetitions }));

export const WORKLOAD_PRESETS: WorkloadPreset[] = [
  {
    name: "iot-linear",
    study: "000",
    description: "ramping VUs: 0 -> 100 over 30 min",
    params: iotParams,
    requires: [],
    example: {},
    build: single("iot-linear", iotLinear),
  },
  {
    name: "iot-random",
    study: "000",
    description: "ramping VUs: 60 at 7 min, 30 at 14, 100 at 21, 40 at 28, 0 at 30",
    params: iotParams,
    requires: [],
    example: {},
    build: single("iot-random", iotRandom),
  },
  {
    name: "iot-spike",
    study: "000",
    description: "ramping VUs: 10 from 1 min, spike to 100 at 14-16 min, 10 until 29, 0 at 30",
    params: iotParams,
    requires: [],
    example: {},
    build: single("iot-spike", iotSpike),
  },
  {
    name: "iot-sprint",
    study: "000",
    description: "ramping VUs: 0 -> 100 over 5 min (Sensors-Add; inferred, see IOT_STAGES.sprint)",
    params: iotParams,
    requires: [],
    example: {},
    build: single("iot-sprint", iotSprint),
  },
  {
    name: "concurrency-sweep",
    study: "001/002",
    description: "closed loop at 1, 5, 10, 20, 50, 100 VUs: N requests each (ab -n/-c) or T seconds (Fortio); one workload per level",
    params: concurrencyParams,
    requires: [],
    example: {},
    build: sweep("concurrency-sweep", concurrencySweep),
  },
  {
    name: "payload-sweep",
    study: "003",
    description: "10,000 requests with a body of 0, 512, 1024, 2048, 4096, 8192 bytes; one workload per size",
    params: payloadParams,
    requires: [],
    example: {},
    build: sweep("payload-sweep", payloadSweep),
  },
  {
    name: "step-ramp",
    study: "004",
    description: "arrival rate up in steps every 2 min for 20 min, to find the maximum throughput",
    params: stepRampParams,
    requires: [],
    example: {},
    build: single("step-ramp", stepRamp),
  },
  {
    name: "stable-at-percent",
    study: "004",
    description: "constant arrival rate at 80% of a saturated step-ramp run's maximum throughput, 10 min (needs runId)",
    params: stableParams,
    requires: ["runId"],
    example: { runId: "00000000-0000-4000-8000-000000000000" },
    build: single("stable-at-percent", stableAtPercent),
  },
];

export const findPreset = (name: string) => WORKLOAD_PRESETS.find((p) => p.name === name) ?? null;
