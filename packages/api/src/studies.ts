// What the API takes and returns for studies: the list, a created study, the study page's view, an abort, and
// the query of a study table's export, and the study planner's query and answer.
import {
  DEFAULT_PRIMARY_METRIC,
  INTERVAL_KINDS,
  primaryMetricKey,
  runSummarySchema,
  STUDY_METRICS,
  STUDY_ORDERS,
  STUDY_TABLE_IDS,
  type StudyMetric,
  validityFlag,
} from "@opsbench/core";
import { z } from "zod";
import { id, isoTime, nullableIsoTime, runStatus } from "./wire";

/** What a study's list item and its view both open with. */
const studyHead = {
  id,
  name: z.string(),
  status: z.string(),
  order: z.string(),
  seed: z.number().int().nullable(),
  repetitions: z.number().int(),
};

export const studyListItemSchema = z.strictObject({
  ...studyHead,
  cells: z.number().int(),
  runs: z.strictObject({ total: z.number(), finished: z.number(), succeeded: z.number(), failed: z.number(), aborted: z.number() }),
  createdAt: isoTime,
  startedAt: nullableIsoTime,
  finishedAt: nullableIsoTime,
});

/** POST /api/v1/studies: the study made, its run order and seed, and how many cells and runs it has. */
export const studyCreatedSchema = z.strictObject({
  id,
  status: z.string(),
  order: z.enum(STUDY_ORDERS),
  seed: z.number().int().nullable(),
  cells: z.number().int(),
  runs: z.number().int(),
});

const sampleStatsSchema = z.strictObject({
  n: z.number(),
  mean: z.number().nullable(),
  sd: z.number().nullable(),
  /** The 95% confidence interval from 3 runs on (inside the figure's domain; halfWidth: half its width), else null. */
  ci95: z.strictObject({ level: z.number(), low: z.number(), high: z.number(), halfWidth: z.number() }).nullable(),
  /** The interval shown (core's domain-interval.ts): the value (1 run), the runs' range (2), a 95% t-interval (3 on). */
  interval: z
    .strictObject({
      kind: z.enum(INTERVAL_KINDS),
      level: z.number().nullable(),
      low: z.number(),
      high: z.number(),
    })
    .nullable(),
});

/**
 * A field per figure a study cell shows (core's STUDY_METRICS: the metric catalog's entries studies show, then
 * goodput and failures), so a metric the catalog gives studies reaches this answer's shape without an edit here.
 */
const perStudyMetric = <S extends z.ZodType>(schema: S) =>
  Object.fromEntries(STUDY_METRICS.map((m) => [m, schema])) as Record<StudyMetric, S>;

const studyRunViewSchema = z.strictObject({
  id,
  cell: z.number().int(),
  status: runStatus,
  repetition: z.number().int(),
  round: z.number().int().nullable(),
  position: z.number().int().nullable(),
  flags: z.array(validityFlag),
  error: z.string().nullable(),
  startedAt: nullableIsoTime,
  finishedAt: nullableIsoTime,
  result: z
    .strictObject({
      requests: z.number(),
      ...perStudyMetric(z.number()),
    })
    .nullable(),
});

/** GET /api/v1/studies/{id}: cells, runs, spread across repetitions, merged results, progress and ETA. */
export const studyViewSchema = z.strictObject({
  ...studyHead,
  cooldownSeconds: z.number(),
  baselineWaitSeconds: z.number(),
  warmupSeconds: z.number(),
  /** The metric its verdicts judge in their family (null: p95). */
  primaryMetric: z.string().nullable(),
  createdAt: isoTime,
  startedAt: nullableIsoTime,
  finishedAt: nullableIsoTime,
  error: z.string().nullable(),
  progress: z.strictObject({
    total: z.number(),
    finished: z.number(),
    succeeded: z.number(),
    failed: z.number(),
    aborted: z.number(),
    etaSeconds: z.number().nullable(),
    overheadSeconds: z.number(),
    current: z.strictObject({ runId: id, position: z.number().int().nullable(), cell: z.number().int(), status: runStatus }).nullable(),
  }),
  cells: z.array(
    z.strictObject({
      index: z.number().int(),
      target: z.strictObject({ id: z.string(), name: z.string(), kind: z.string().nullable() }),
      workload: z.strictObject({ id: z.string(), name: z.string() }),
      runs: z.array(studyRunViewSchema),
      stats: z.strictObject(perStudyMetric(sampleStatsSchema)),
      merged: runSummarySchema.nullable(),
      flags: z.array(validityFlag),
    }),
  ),
  runs: z.array(studyRunViewSchema),
});
/** A study as the API answers it (the CLI prints it; the database's StudyView has the same shape). */
export type StudyViewAnswer = z.output<typeof studyViewSchema>;

/** POST /api/v1/studies/{id}/abort: whether this call aborted it, and its status now. */
export const studyAbortSchema = z.strictObject({ id, aborted: z.boolean(), status: z.string() });

/** GET /api/v1/studies/{id}/tables: which table, the file format, and the request name maximum throughput is of (default: all). */
export const studyTablesQuery = z.object({
  table: z.enum(STUDY_TABLE_IDS),
  format: z.enum(["csv", "json"]).default("csv"),
  request: z.string().trim().min(1).max(200).optional(),
});

/** A comma-separated list of names in a query ("a,b"), each trimmed; empty entries dropped. */
const nameList = z
  .string()
  .max(2000)
  .transform((s) =>
    s
      .split(",")
      .map((x) => x.trim())
      .filter(Boolean),
  );

/**
 * GET /api/v1/studies/plan: the power a study would have before it is launched. Percentages as in the comparison's
 * query; the CV, when not given, is measured from earlier runs of the same targets x workloads.
 */
export const studyPlanQuery = z.object({
  repetitions: z.coerce
    .number({ message: "repetitions: expected a whole number from 2 to 100" })
    .int({ message: "repetitions: expected a whole number from 2 to 100" })
    .min(2, { message: "repetitions: at least 2 (one run a side is never a verdict between configurations)" })
    .max(100, { message: "repetitions: at most 100" })
    .default(3),
  targets: nameList.default([]),
  workloads: nameList.default([]),
  primary: primaryMetricKey.default(DEFAULT_PRIMARY_METRIC),
  margin: z.coerce
    .number({ message: "margin: expected a number (percent)" })
    .min(0)
    .max(50, { message: "margin: at most 50 (percent)" })
    .default(5),
  effect: z.coerce
    .number({ message: "effect: expected a number (percent)" })
    .gt(0, { message: "effect: must be above 0 (percent)" })
    .max(100, { message: "effect: at most 100 (percent)" })
    .default(10),
  cv: z.coerce
    .number({ message: "cv: expected a number (the run-to-run CV, percent)" })
    .gt(0, { message: "cv: must be above 0 (percent)" })
    .max(99, { message: "cv: below 100 (percent)" })
    .optional(),
});

/** The CV assumed when none is given and no earlier runs say one (percent). */
export const ASSUMED_RUN_CV_PERCENT = 5;

export const studyPlanSchema = z.strictObject({
  repetitions: z.number().int(),
  primaryMetric: z.string(),
  /** Verdicts in the primary metric's family: workloads x (targets - 1), at least 1. */
  familySize: z.number().int(),
  margin: z.number(),
  effect: z.number(),
  cv: z.strictObject({
    value: z.number(),
    source: z.enum(["stated", "earlier-runs", "assumed"]),
    cells: z.array(z.strictObject({ target: z.string(), workload: z.string(), runs: z.number().int(), cv: z.number() })),
  }),
  power: z.number(),
  repetitionsNeeded: z.number().int().nullable(),
  detectable: z.number(),
  text: z.string(),
});
export type StudyPlanAnswer = z.infer<typeof studyPlanSchema>;
