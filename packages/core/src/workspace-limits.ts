// What a workspace may ask of the machine, and the check of a workload's real requirements (what
// `k6 inspect --execution-requirements` derived from the compiled script) against them. Pure: the
// web app asks a worker for the requirements and the database for the limits.
import { z } from "zod";
import { MAX_STUDY_RUNS } from "./study-spec";
import { durationSeconds } from "./workloads/duration";
import { MAX_GENERATORS } from "./workload-spec";

const positiveInt = (max: number) => z.number().int().min(1).max(max);

export const workspaceLimitsSchema = z.strictObject({
  /** The longest a workload may run (k6's total duration, graceful stops included). */
  maxDurationSeconds: positiveInt(7 * 86_400),
  maxVUs: positiveInt(1_000_000),
  /** Iterations per second an arrival-rate workload may start at its peak. */
  maxArrivalRate: positiveInt(10_000_000),
  /** Runs in one study (targets x workloads x repetitions). */
  maxStudyRuns: positiveInt(MAX_STUDY_RUNS),
  /** Single runs and studies queued or under way at once. */
  maxConcurrentRuns: positiveInt(1000),
  /** Distinct request names stored per run; beyond it, requests fold into one "other" series and the run is flagged. */
  maxHttpSeries: positiveInt(100_000),
  /** Runs and studies created per minute. */
  runCreationsPerMinute: positiveInt(10_000),
  /** Load generators one run may be split over (a workload's `generators`). */
  maxGenerators: positiveInt(MAX_GENERATORS),
});
export type WorkspaceLimits = z.infer<typeof workspaceLimitsSchema>;
export type WorkspaceLimitName = keyof WorkspaceLimits;

/** What a new install allows: an hour's test of up to 1,000 VUs on a machine of its own. */
export const DEFAULT_WORKSPACE_LIMITS: WorkspaceLimits = {
  maxDurationSeconds: 3600,
  maxVUs: 1000,
  maxArrivalRate: 5000,
  maxStudyRuns: 200,
  maxConcurrentRuns: 10,
  maxHttpSeries: 200,
  runCreationsPerMinute: 30,
  maxGenerators: 4,
};

/** What a workload asks for, from k6 inspect. */
export interface WorkloadRequirements {
  totalDurationSeconds: number | null;
  maxVUs: number | null;
  /** k6's options (scenarios included), as inspect derived them. */
  options: Record<string, unknown>;
}

export interface LimitBreach {
  limit: WorkspaceLimitName;
  message: string;
}

const scenarioSchema = z.looseObject({
  executor: z.string().optional(),
  rate: z.number().optional(),
  startRate: z.number().optional(),
  timeUnit: z.string().optional(),
  stages: z.array(z.looseObject({ target: z.number().optional() })).optional(),
});

/** The highest iterations per second any arrival-rate scenario starts, or 0 when none does. */
export function peakArrivalRate(options: Record<string, unknown>): number {
  const scenarios = z.record(z.string(), z.unknown()).safeParse(options.scenarios);
  if (!scenarios.success) return 0;
  let peak = 0;
  for (const raw of Object.values(scenarios.data)) {
    const s = scenarioSchema.safeParse(raw);
    if (!s.success || !s.data.executor?.endsWith("arrival-rate")) continue;
    const unitSeconds = durationSeconds(s.data.timeUnit ?? "1s") || 1;
    const perUnit = Math.max(s.data.rate ?? 0, s.data.startRate ?? 0, ...(s.data.stages ?? []).map((st) => st.target ?? 0));
    peak = Math.max(peak, perUnit / unitSeconds);
  }
  return peak;
}

/** Every limit the workload goes over, each with a message that names it. */
export function workloadLimitBreaches(req: WorkloadRequirements, limits: WorkspaceLimits): LimitBreach[] {
  const out: LimitBreach[] = [];
  if (req.totalDurationSeconds !== null && req.totalDurationSeconds > limits.maxDurationSeconds)
    out.push({
      limit: "maxDurationSeconds",
      message: `runs for up to ${Math.round(req.totalDurationSeconds)} s; the workspace's limit maxDurationSeconds is ${limits.maxDurationSeconds}`,
    });
  if (req.maxVUs !== null && req.maxVUs > limits.maxVUs)
    out.push({ limit: "maxVUs", message: `uses up to ${req.maxVUs} VUs; the workspace's limit maxVUs is ${limits.maxVUs}` });
  const rate = peakArrivalRate(req.options);
  if (rate > limits.maxArrivalRate)
    out.push({
      limit: "maxArrivalRate",
      message: `starts up to ${Math.round(rate)} iterations/s; the workspace's limit maxArrivalRate is ${limits.maxArrivalRate}`,
    });
  return out;
}

/** The workload's load generators over the workspace's maxGenerators, or null when within it. */
export function generatorsBreach(spec: { generators?: number | undefined }, limits: WorkspaceLimits): LimitBreach | null {
  const n = spec.generators ?? 1;
  return n > limits.maxGenerators
    ? { limit: "maxGenerators", message: `asks for ${n} load generators; the workspace's limit maxGenerators is ${limits.maxGenerators}` }
    : null;
}
