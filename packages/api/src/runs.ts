// What the API returns for runs: the list, a created run, the run page's view and a window's summary.
// Schemas only (no server module): the web app's handlers and the CLI (packed alone) parse with the same ones;
// apps/web/lib/api/contract-shapes.ts checks them against the services' types.
import {
  commitFilterSchema,
  labelFilterText,
  loadAdmission,
  provenanceFields,
  recordedProvenanceSchema,
  runProvenanceSchema,
  runSummarySchema,
  scriptEnvSchema,
  scriptSecretNames,
  targetName,
  thresholdOutcomeSchema,
  timeBucketSchema,
  validityFlag,
} from "@opsbench/core";
import { z } from "zod";
import { newestFirstPageQuery } from "./pages";
import { id, isoTime, nullableIsoTime, runStatus } from "./wire";

const targetRef = z.strictObject({ name: z.string(), kind: z.string() }).nullable();
const workloadRef = z.strictObject({ name: z.string() }).nullable();

export const runListItemSchema = z.strictObject({
  id,
  status: runStatus,
  studyId: id.nullable(),
  repetition: z.number().int(),
  target: targetRef,
  workload: workloadRef,
  name: z.string().nullable(),
  source: z.string(),
  createdAt: isoTime,
  startedAt: nullableIsoTime,
  finishedAt: nullableIsoTime,
  error: z.string().nullable(),
  summary: runSummarySchema.nullable(),
  flags: z.array(validityFlag),
  provenance: recordedProvenanceSchema,
});

/** GET /api/v1/runs?commit=&branch=&label=key=value&cursor=&limit= (pages.ts): only the runs whose provenance matches (a commit by a prefix of 7+ hex digits). */
export const runsQuery = z.object({
  commit: commitFilterSchema.optional(),
  branch: provenanceFields.branch.optional(),
  label: labelFilterText.optional(),
  ...newestFirstPageQuery.shape,
});

/** POST /api/v1/runs: the run made and queued. */
export const runCreatedSchema = z.strictObject({ id, status: runStatus });

export const startRunInput = z
  .object({
    target: z.string().min(1),
    workload: z.string().min(1),
    /** The code and build the run is of (`opsbench run` sends what CI's environment and its flags give). */
    provenance: runProvenanceSchema.optional(),
    /** What the script sees in __ENV besides OPSBENCH_BASE_URL (`opsbench run --env KEY=VALUE`); kept and shown with the run. */
    env: scriptEnvSchema.optional(),
    /** Workspace secrets given to the script as __ENV.NAME (`--secret NAME`); their values are never shown. */
    secrets: scriptSecretNames.optional(),
  })
  .strict()
  .superRefine((input, ctx) => {
    for (const name of input.secrets ?? [])
      if (input.env && name in input.env)
        ctx.addIssue({ code: "custom", path: ["secrets"], message: `${name} is given both with --env and as a secret` });
  });

/** PUT /api/v1/runs/{id}/provenance: the run's provenance now (the body replaced what it had). */
export const runProvenanceSetSchema = z.strictObject({ id, provenance: recordedProvenanceSchema });

const checkSummarySchema = z.strictObject({
  name: z.string(),
  passes: z.number(),
  fails: z.number(),
  passRate: z.number(),
  points: z.array(z.strictObject({ offsetSeconds: z.number(), passes: z.number(), fails: z.number() })),
});

const metricCommon = {
  name: z.string(),
  unit: z.string(),
  points: z.array(z.strictObject({ offsetSeconds: z.number(), value: z.number() })),
};
const customMetricSummarySchema = z.discriminatedUnion("kind", [
  z.strictObject({ ...metricCommon, kind: z.literal("counter"), total: z.number(), perSecond: z.number() }),
  z.strictObject({ ...metricCommon, kind: z.literal("rate"), passes: z.number(), total: z.number(), rate: z.number() }),
  z.strictObject({
    ...metricCommon,
    kind: z.literal("trend"),
    count: z.number(),
    avg: z.number(),
    min: z.number(),
    med: z.number(),
    p90: z.number(),
    p95: z.number(),
    p99: z.number(),
    max: z.number(),
  }),
  z.strictObject({ ...metricCommon, kind: z.literal("gauge"), last: z.number(), min: z.number(), max: z.number() }),
]);

const infraSeriesPointSchema = z.strictObject({
  offsetSeconds: z.number(),
  replicas: z.number(),
  cpuPercent: z.number().nullable(),
  perUnitCpu: z.array(z.number().nullable()),
  unitIds: z.array(z.union([z.number(), z.string()])).nullable(),
  desired: z.number().nullable(),
  starting: z.number().nullable(),
  coldStarts: z.number(),
  coldStartMs: z.array(z.number()),
  queued: z.number().nullable(),
  queuedPeak: z.number().nullable(),
  inFlight: z.number().nullable(),
  rejected: z.number().nullable(),
  billedMs: z.number().nullable(),
  scalingEvents: z.array(z.strictObject({ from: z.number(), to: z.number(), reason: z.string() })),
});

/** GET /api/v1/runs/{id}: the run as its page shows it. */
export const runViewSchema = z.strictObject({
  id,
  status: runStatus,
  studyId: id.nullable(),
  repetition: z.number().int(),
  target: targetRef,
  workload: workloadRef,
  source: z.string(),
  name: z.string().nullable(),
  createdAt: isoTime,
  startedAt: nullableIsoTime,
  loadStartedAt: nullableIsoTime,
  loadFinishedAt: nullableIsoTime,
  finishedAt: nullableIsoTime,
  k6Version: z.string().nullable(),
  k6ExitCode: z.number().int().nullable(),
  thresholdsOk: z.boolean().nullable(),
  thresholds: z.array(z.strictObject(thresholdOutcomeSchema.shape)),
  error: z.string().nullable(),
  flags: z.array(validityFlag),
  loadAdmission: loadAdmission.nullable(),
  steps: z.array(
    z.strictObject({
      name: z.string(),
      status: z.string(),
      startedAt: isoTime,
      finishedAt: nullableIsoTime,
      durationMs: z.number().nullable(),
      error: z.string().nullable(),
    }),
  ),
  summary: runSummarySchema.nullable(),
  series: z.strictObject({
    bucketSeconds: z.number(),
    points: z.array(timeBucketSchema),
    /** Set when the series is one zoomed window (seconds after the load start). */
    window: z.strictObject({ fromSeconds: z.number(), toSeconds: z.number() }).nullable(),
  }),
  /** The offered load in the series' buckets: VUs (closed-loop runs) or scheduled arrivals per second (open ones). */
  load: z.strictObject({
    closedLoop: z.boolean(),
    points: z.array(z.strictObject({ offsetSeconds: z.number(), vus: z.number(), arrivalsPerSecond: z.number() })),
  }),
  events: z.array(z.strictObject({ ts: isoTime, level: z.string(), message: z.string() })),
  checks: z.array(checkSummarySchema),
  customMetrics: z.array(customMetricSummarySchema),
  infra: z.strictObject({ kind: z.string().nullable(), points: z.array(infraSeriesPointSchema) }),
  seriesPrunedAt: nullableIsoTime,
  vcpuPerReplica: z.number().nullable(),
  provenance: recordedProvenanceSchema,
  /** The script's __ENV besides OPSBENCH_BASE_URL: --env values as given, secrets' values as ***. */
  scriptEnv: z.array(z.strictObject({ key: z.string(), value: z.string(), secret: z.boolean() })),
});
/** A run as the API answers it (the CLI prints it; the database's RunView has the same shape). */
export type RunViewAnswer = z.output<typeof runViewSchema>;

/** GET /api/v1/runs/{id}/summary?from&to: seconds after the load started. */
export const windowQuery = z
  .object({
    from: z.coerce.number().min(0),
    to: z.coerce.number().positive(),
  })
  .refine((w) => w.to > w.from, { message: "to must be after from", path: ["to"] });

/** The window's summary, or null when the run has no data yet. */
export const windowSummarySchema = runSummarySchema.extend({ fromSeconds: z.number(), toSeconds: z.number() }).nullable();
export type WindowSummaryAnswer = NonNullable<z.output<typeof windowSummarySchema>>;

/** POST /api/v1/runs/{id}/abort: whether this request aborted it, and its status now (ABORTED at once when it was queued). */
export const runAbortSchema = z.strictObject({ id, aborted: z.boolean(), status: runStatus });

/** GET /api/v1/runs/{id}/artifacts: the files the run's script wrote with handleSummary() (each at .../artifacts/{name}). */
export const runArtifactSchema = z.strictObject({ name: z.string(), size: z.number().int(), createdAt: isoTime });
export const runArtifactsSchema = z.array(runArtifactSchema);

/** GET /api/v1/runs/{id}/artifacts/{name}: the name URL-encoded as one segment (a "/" in it as %2F). */
export const artifactParams = z.object({ id: z.string(), name: z.string().min(1).max(400) });

/** A workspace's baseline for a target and workload: the run later runs of the pair are compared with. */
export const baselineSchema = z.strictObject({ runId: id, target: z.string(), workload: z.string(), createdAt: isoTime });
/** GET /api/v1/baselines?target=&workload=: the workspace's baselines, newest first. */
// Target and workload names follow the same rule (lower-case letters, digits, ".", "_", "-").
export const baselinesQuery = z.object({ target: targetName.optional(), workload: targetName.optional() });
export const baselinesSchema = z.array(baselineSchema);

/** `--baseline-runs N`: the baseline side of a gate is the last N runs of the baseline's series, 2 to 30. */
export const BASELINE_RUNS_MIN = 2;
export const BASELINE_RUNS_MAX = 30;
/** GET /api/v1/runs/{id}/baseline?runs=N[&exclude=RUN_ID]: the last N runs of the run's series, ending at it. */
export const baselineRunsQuery = z.object({
  runs: z.coerce
    .number({ message: "runs: expected a whole number of runs" })
    .int({ message: "runs: expected a whole number of runs" })
    .min(BASELINE_RUNS_MIN, { message: `runs: at least ${BASELINE_RUNS_MIN} (one run a side is judged within-run)` })
    .max(BASELINE_RUNS_MAX, { message: `runs: at most ${BASELINE_RUNS_MAX}` }),
  /** A run left out (the candidate being compared, when it is of the same series). */
  exclude: id.optional(),
});
/**
 * The runs found, the baseline run first then older ones, newest first (fewer than asked when the series holds
 * fewer), and the series in words (a target x workload, or an import name).
 */
export const baselineRunsSchema = z.strictObject({ runIds: z.array(id), series: z.string() });
