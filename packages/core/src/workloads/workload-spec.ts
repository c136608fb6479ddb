// Workloads: how a target is loaded. Each generated kind maps to one k6
// executor (closed model: ramping-vus, constant-vus, shared-iterations; open
// model: constant- and ramping-arrival-rate) plus a request program
// (workloads/request-mix.ts); "script" is a k6 script brought by the user.
import { z } from "zod";
import { resourceName } from "../names/resource-name";
import { bundleEntry, MAX_BUNDLE_FILES, remoteModuleSchema, scriptBundleFields } from "./script-bundle";
import { durationSeconds, k6Duration } from "./duration";
import { programIssues, programShape } from "./request-mix";

export { k6Duration, durationSeconds, formatDuration, scaleDuration } from "./duration";
export {
  requestSpec,
  poolSpec,
  setupStep,
  keyChoice,
  type RequestSpec,
  type PoolSpec,
  type SetupStep,
  type KeyChoice,
} from "./request-mix";

const vus = z.number().int().min(0).max(100_000);
const positiveVus = z.number().int().min(1).max(100_000);
export const stage = z.object({ duration: k6Duration, target: vus }).strict();
const rateStage = z.object({ duration: k6Duration, target: z.number().int().min(0).max(10_000_000) }).strict();
/** How long k6 lets running iterations finish when a scenario ends (k6's default: 30s). */
const gracefulStop = k6Duration.optional();

/** The most load generators one run may be split over (the workspace's maxGenerators may allow fewer). */
export const MAX_GENERATORS = 64;
/**
 * Load generators to split the run over: k6 execution segments, one per worker taking a job from the
 * "load" queue (docs/generators.md). 1 (or absent): the run's own worker runs k6 alone.
 */
const generators = z.number().int().min(1).max(MAX_GENERATORS).optional();

export const rampingVusWorkload = z
  .object({
    kind: z.literal("ramping-vus"),
    startVUs: vus.default(0),
    stages: z.array(stage).min(1),
    gracefulRampDown: k6Duration.default("10s"),
    gracefulStop,
    generators,
    ...programShape,
  })
  .strict();

/** Closed loop at a fixed concurrency for a fixed time (Fortio in study 002). */
export const constantVusWorkload = z
  .object({ kind: z.literal("constant-vus"), vus: positiveVus, duration: k6Duration, gracefulStop, generators, ...programShape })
  .strict();

/** Closed loop at a fixed concurrency for a fixed number of iterations (ab -n N -c C in study 001). */
export const sharedIterationsWorkload = z
  .object({
    kind: z.literal("shared-iterations"),
    vus: positiveVus,
    iterations: z.number().int().min(1).max(100_000_000),
    maxDuration: k6Duration.default("30m"),
    gracefulStop,
    generators,
    ...programShape,
  })
  .strict()
  .refine((w) => w.iterations >= w.vus, { message: "iterations must be at least vus (each VU takes one)", path: ["iterations"] });

/**
 * "Stable at X% of the maximum throughput measured in run R" (study 004); resolved when a run is created (resolveRate):
 * R's maximum req/s divided by the requests one of its iterations sent, or with `request`, that request's maximum
 * divided by its count per iteration.
 */
export const percentOfRunMax = z
  .object({
    percentOfRunMax: z.number().gt(0).max(1000),
    runId: z.uuid(),
    /** A request name (k6's name tag) whose own maximum sets the rate. */
    request: z.string().min(1).max(200).optional(),
  })
  .strict();
export type PercentOfRunMax = z.infer<typeof percentOfRunMax>;

/** Where a resolved rate came from (resolveRate): the percent asked and what the reference run measured. */
export const rateSourceSchema = percentOfRunMax
  .extend({
    /** The reference run's maximum (successful req/s; of the named request when there is one). */
    maxThroughputRps: z.number().positive(),
    /** Requests per iteration in the reference run (of the named request when there is one); absent in specs resolved before. */
    requestsPerIteration: z.number().positive().optional(),
    /** The iteration rate the percent gives (max x percent / requests per iteration). */
    iterationsPerSecond: z.number().positive().optional(),
    /** What k6 is asked for after rounding the rate per timeUnit. */
    offeredIterationsPerSecond: z.number().positive().optional(),
  })
  .strict();
export type RateSource = z.infer<typeof rateSourceSchema>;

const arrivalVus = {
  /** VUs k6 starts before the test; iterations beyond what they can serve wait for more (up to maxVUs) or are dropped. */
  preAllocatedVUs: positiveVus,
  maxVUs: positiveVus.optional(),
};

/** An open-model workload: its own fields, then what every open model has. */
const openModelWorkload = <S extends z.ZodRawShape>(shape: S) =>
  z.object({ ...shape, gracefulStop, generators, ...arrivalVus, ...programShape }).strict();
/** maxVUs, when set, covers the pre-allocated VUs. */
const maxVusCoverPreallocated = (w: { preAllocatedVUs: number; maxVUs?: number }) =>
  w.maxVUs === undefined || w.maxVUs >= w.preAllocatedVUs;
const maxVusTooFew = { message: "maxVUs must be at least preAllocatedVUs", path: ["maxVUs"] };

/** Open model: iterations start at a fixed rate whatever the response time. */
export const constantArrivalRateWorkload = openModelWorkload({
  kind: z.literal("constant-arrival-rate"),
  /** Iterations per timeUnit, or a share of a measured maximum. */
  rate: z.union([z.number().int().min(1).max(10_000_000), percentOfRunMax]),
  /** Where a resolved rate came from (set by resolveRate). */
  rateSource: rateSourceSchema.optional(),
  timeUnit: k6Duration.default("1s"),
  duration: k6Duration,
}).refine(maxVusCoverPreallocated, maxVusTooFew);

/** Open model with a changing rate; stages ramp linearly, a "0s" stage jumps (the step ramp of study 004). */
export const rampingArrivalRateWorkload = openModelWorkload({
  kind: z.literal("ramping-arrival-rate"),
  startRate: z.number().int().min(0).max(10_000_000).default(0),
  timeUnit: k6Duration.default("1s"),
  stages: z.array(rateStage).min(1),
}).refine(maxVusCoverPreallocated, maxVusTooFew);

/** A k6 script brought by the user. The target's address is in __ENV.OPSBENCH_BASE_URL. */
export const scriptWorkload = z
  .object({
    kind: z.literal("script"),
    source: z.string().min(1, "the script is empty").max(1_000_000, "a script may be at most 1,000,000 characters"),
    /** A k6 project's entry path and its local modules and data files, or a `k6 archive` tar (script-bundle.ts). */
    ...scriptBundleFields,
    /** The https modules the CLI bundled into files (their URL and sha256), for the record; the runner never fetches. */
    remoteModules: z.array(remoteModuleSchema).max(MAX_BUNDLE_FILES).optional(),
    generators,
  })
  .strict()
  .superRefine((spec, ctx) => {
    const { entry, archive } = bundleEntry(spec);
    if (archive && !spec.files?.[entry])
      ctx.addIssue({ code: "custom", path: ["files"], message: `the k6 archive "${entry}" is not in files` });
    if (!archive && spec.files?.[entry])
      ctx.addIssue({ code: "custom", path: ["files", entry], message: "the entry's text is the source, not a file" });
    for (const [i, m] of (spec.remoteModules ?? []).entries())
      if (!spec.files?.[m.path])
        ctx.addIssue({ code: "custom", path: ["remoteModules", i, "path"], message: `the bundled module "${m.path}" is not in files` });
  });

export const workloadSpec = z
  .discriminatedUnion("kind", [
    rampingVusWorkload,
    constantVusWorkload,
    sharedIterationsWorkload,
    constantArrivalRateWorkload,
    rampingArrivalRateWorkload,
    scriptWorkload,
  ])
  .superRefine((spec, ctx) => {
    if (spec.kind === "script") return;
    for (const issue of programIssues(spec)) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
  });
export type WorkloadSpec = z.infer<typeof workloadSpec>;
export type WorkloadKind = WorkloadSpec["kind"];
/** Every kind opsbench compiles itself (all but "script"). */
export type GeneratedWorkloadSpec = Exclude<WorkloadSpec, { kind: "script" }>;

/** Load generators the workload asks for (1 unless it says more). */
export const generatorsOf = (spec: { generators?: number | undefined }): number => spec.generators ?? 1;

export const workloadInput = z
  .object({
    name: resourceName,
    spec: workloadSpec,
  })
  .strict();
export type WorkloadInput = z.infer<typeof workloadInput>;

/**
 * Seconds the workload is planned to take (without graceful stop or ramp-down):
 * the sum of its stages, its duration, or for shared-iterations its maxDuration
 * (an upper bound). 0 for a user script, whose options opsbench does not read.
 */
export function plannedSeconds(spec: WorkloadSpec): number {
  switch (spec.kind) {
    case "ramping-vus":
    case "ramping-arrival-rate":
      return spec.stages.reduce((sum, s) => sum + durationSeconds(s.duration), 0);
    case "constant-vus":
    case "constant-arrival-rate":
      return durationSeconds(spec.duration);
    case "shared-iterations":
      return durationSeconds(spec.maxDuration);
    case "script":
      return 0;
  }
}
