// What a workspace may ask of the machine, and the check of a workload's real requirements (what
// `k6 inspect --execution-requirements` derived from the compiled script) against them. Pure: the
// web app asks a worker for the requirements and the database for the limits.
import { z } from "zod";
import { MAX_STUDY_RUNS } from "../studies/study-spec";
import { durationSeconds } from "../workloads/duration";
import { MAX_GENERATORS } from "../workloads/workload-spec";

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
  /** Runs created in the last 24 hours (single runs and each run of a study; imported k6 results do not count). */
  maxRunsPerDay: positiveInt(1_000_000),
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
  maxRunsPerDay: 500,
};

/**
 * The instance's ceilings: the same limits, set by the instance admin for every workspace. An owner sets their
 * workspace's limits only up to them, and what binds a workspace is the lower of the two (effectiveLimits), so a
 * ceiling lowered later binds workspaces whose own limits are higher.
 */
export const instanceCeilingsSchema = workspaceLimitsSchema;
export type InstanceCeilings = WorkspaceLimits;

/** A new install's ceilings: the defaults of a workspace, for one shared machine (the admin raises them). */
export const DEFAULT_INSTANCE_CEILINGS: InstanceCeilings = { ...DEFAULT_WORKSPACE_LIMITS };

const LIMIT_NAMES = Object.keys(workspaceLimitsSchema.shape) as WorkspaceLimitName[];

/** Which limits of an effective-limits object are the instance's ceiling (lower than the workspace's own). */
const ceilingBound = new WeakMap<WorkspaceLimits, ReadonlySet<WorkspaceLimitName>>();

/** What binds a workspace: each limit the lower of its own and the instance's ceiling. */
export function effectiveLimits(workspace: WorkspaceLimits, ceilings: InstanceCeilings): WorkspaceLimits {
  const out = { ...workspace };
  const bound = new Set<WorkspaceLimitName>();
  for (const name of LIMIT_NAMES) {
    if (ceilings[name] < workspace[name]) {
      out[name] = ceilings[name];
      bound.add(name);
    }
  }
  ceilingBound.set(out, bound);
  return out;
}

/** "the workspace's limit maxVUs is 2", or "the instance's ceiling maxVUs is 2" when the ceiling is what binds. */
export function limitPhrase(limits: WorkspaceLimits, name: WorkspaceLimitName): string {
  return ceilingBound.get(limits)?.has(name)
    ? `the instance's ceiling ${name} is ${limits[name]}`
    : `the workspace's limit ${name} is ${limits[name]}`;
}

/** The limits an owner asks for above the instance's ceilings, each with a message naming the limit and its ceiling. */
export function ceilingBreaches(changes: Partial<WorkspaceLimits>, ceilings: InstanceCeilings): LimitBreach[] {
  const out: LimitBreach[] = [];
  for (const name of LIMIT_NAMES) {
    const asked = changes[name];
    if (asked !== undefined && asked > ceilings[name])
      out.push({
        limit: name,
        message: `${asked} is above the instance's ceiling ${name} (${ceilings[name]}), set by the instance admin`,
      });
  }
  return out;
}

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
  startTime: z.string().optional(),
  duration: z.string().optional(),
  stages: z.array(z.looseObject({ target: z.number().optional(), duration: z.string().optional() })).optional(),
});

/**
 * The most iterations per second the arrival-rate scenarios start at once, or 0 when none does: each scenario at
 * its own peak, summed over the scenarios whose starting windows overlap (one that starts as another ends does not
 * add to it). Per scenario, ten scenarios at the limit each made ten times the limit. The engine's plan
 * (engine/internal/options plan.go) sums the same way, so an honest script's plan never exceeds inspect's answer.
 */
export function peakArrivalRate(options: Record<string, unknown>): number {
  const scenarios = z.record(z.string(), z.unknown()).safeParse(options.scenarios);
  if (!scenarios.success) return 0;
  const events: Array<{ at: number; rate: number }> = [];
  for (const raw of Object.values(scenarios.data)) {
    const s = scenarioSchema.safeParse(raw);
    if (!s.success || !s.data.executor?.endsWith("arrival-rate")) continue;
    const unitSeconds = durationSeconds(s.data.timeUnit ?? "1s") || 1;
    const perUnit = Math.max(s.data.rate ?? 0, s.data.startRate ?? 0, ...(s.data.stages ?? []).map((st) => st.target ?? 0));
    const start = durationSeconds(s.data.startTime ?? "0s");
    const length = s.data.stages
      ? s.data.stages.reduce((n, st) => n + durationSeconds(st.duration ?? "0s"), 0)
      : durationSeconds(s.data.duration ?? "0s");
    // A window of unknown length (no duration given) is taken to last: it overlaps whatever comes after it.
    const end = length > 0 ? start + length : Number.POSITIVE_INFINITY;
    events.push({ at: start, rate: perUnit / unitSeconds }, { at: end, rate: -perUnit / unitSeconds });
  }
  // Ends before starts at the same moment.
  events.sort((a, b) => a.at - b.at || a.rate - b.rate);
  let now = 0;
  let peak = 0;
  for (const e of events) {
    now += e.rate;
    peak = Math.max(peak, now);
  }
  return peak;
}

/** Every limit the workload goes over, each with a message that names it. */
export function workloadLimitBreaches(req: WorkloadRequirements, limits: WorkspaceLimits): LimitBreach[] {
  const out: LimitBreach[] = [];
  if (req.totalDurationSeconds !== null && req.totalDurationSeconds > limits.maxDurationSeconds)
    out.push({
      limit: "maxDurationSeconds",
      message: `runs for up to ${Math.round(req.totalDurationSeconds)} s; ${limitPhrase(limits, "maxDurationSeconds")}`,
    });
  if (req.maxVUs !== null && req.maxVUs > limits.maxVUs)
    out.push({ limit: "maxVUs", message: `uses up to ${req.maxVUs} VUs; ${limitPhrase(limits, "maxVUs")}` });
  const rate = peakArrivalRate(req.options);
  if (rate > limits.maxArrivalRate)
    out.push({
      limit: "maxArrivalRate",
      message: `starts up to ${Math.round(rate)} iterations/s, summed over the arrival-rate scenarios that run at once; ${limitPhrase(limits, "maxArrivalRate")}`,
    });
  return out;
}

/** The workload's load generators over the workspace's maxGenerators, or null when within it. */
export function generatorsBreach(spec: { generators?: number | undefined }, limits: WorkspaceLimits): LimitBreach | null {
  const n = spec.generators ?? 1;
  return n > limits.maxGenerators
    ? { limit: "maxGenerators", message: `asks for ${n} load generators; ${limitPhrase(limits, "maxGenerators")}` }
    : null;
}

/**
 * Script checks (k6 inspect by a worker: every workload save, each inline workload of a study) a workspace may ask
 * for in a minute. Each check starts a sandboxed k6; without a bound a member could keep the workers busy with them.
 */
export const SCRIPT_CHECKS_PER_MINUTE = 30;

/** How long an external run's ingest token outlives the run's planned duration: time to start its generators. */
export const INGEST_TOKEN_MARGIN_SECONDS = 3600;

/**
 * What an external run asks for beyond the limits: more generators than maxGenerators, or an ingest token that
 * works longer than the run's planned duration (its workload's, else maxDurationSeconds) plus the margin. Returns
 * the breaches (path: the request's field) and the token's hours to use when none were asked for.
 */
export function externalRunBreaches(
  ask: { generators: number; validHours?: number | undefined },
  limits: WorkspaceLimits,
  workloadSeconds: number | null,
): { breaches: Array<LimitBreach & { path: "generators" | "validHours" }>; validHours: number } {
  const breaches: Array<LimitBreach & { path: "generators" | "validHours" }> = [];
  const generators = generatorsBreach({ generators: ask.generators }, limits);
  if (generators) breaches.push({ ...generators, path: "generators" });
  const planned =
    workloadSeconds === null
      ? `the run's planned duration is at most ${limits.maxDurationSeconds} s: ${limitPhrase(limits, "maxDurationSeconds")}`
      : `the workload runs for up to ${Math.round(workloadSeconds)} s`;
  const capHours = ((workloadSeconds ?? limits.maxDurationSeconds) + INGEST_TOKEN_MARGIN_SECONDS) / 3600;
  const round = (h: number) => Math.round(h * 100) / 100;
  if (ask.validHours !== undefined && ask.validHours > capHours)
    breaches.push({
      limit: "maxDurationSeconds",
      path: "validHours",
      message: `${ask.validHours} h is longer than an ingest token may work here (${round(capHours)} h: ${planned}, plus ${INGEST_TOKEN_MARGIN_SECONDS / 3600} h to start the generators)`,
    });
  return { breaches, validHours: ask.validHours ?? capHours };
}
