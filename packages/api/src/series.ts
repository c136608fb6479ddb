// GET /api/v1/series and GET /api/v1/series/{key}/points (docs/trends.md): a workspace's series of runs (a name, or a
// target x workload) and one series' finished runs as trend points, each metric with its 95% interval.
import { CHANGE_METRICS, provenanceFields, seriesKeySchema, TREND_LATENCY_METRICS, validityFlag } from "@opsbench/core";
import { z } from "zod";
import { pageAnswer } from "./pages";
import { id, isoTime, runStatus } from "./wire";

export const seriesItemSchema = z.strictObject({
  /** The series' address: its name, or <target>~<workload>. */
  key: z.string(),
  title: z.string(),
  kind: z.enum(["named", "target-workload"]),
  target: z.strictObject({ name: z.string(), kind: z.string() }).nullable(),
  workload: z.strictObject({ name: z.string() }).nullable(),
  runs: z.number().int().nonnegative(),
  lastRun: z.strictObject({ id, createdAt: isoTime, status: runStatus }),
});
export const seriesPageSchema = pageAnswer(seriesItemSchema);

export const seriesParams = z.object({ key: seriesKeySchema });

export const seriesPointsQuery = z.object({
  /** The latency metric drawn: a stored quantile of successful responses (default p95). */
  metric: z
    .string()
    .refine((m) => TREND_LATENCY_METRICS.includes(m), `one of: ${TREND_LATENCY_METRICS.join(", ")}`)
    .optional(),
  /** At most this many newest finished runs (default 200). */
  limit: z.coerce.number().int("a whole number of runs").min(2, "at least 2 runs").max(1000, "at most 1000 runs").optional(),
  /** Only the runs recorded on this branch (provenance): a CI gate's history on the baseline branch (docs/ci.md). */
  branch: provenanceFields.branch.optional(),
  /** Only the runs that ended so (default: every finished run); with `limit`, the newest that many of those. */
  status: z.enum(["SUCCEEDED", "FAILED", "ABORTED"], { message: "one of: SUCCEEDED, FAILED, ABORTED" }).optional(),
});

const pointValueSchema = z.strictObject({
  value: z.number().nullable(),
  low: z.number().nullable(),
  high: z.number().nullable(),
  unit: z.string(),
  /** Why there is no value or no interval (never an interval made up). */
  note: z.string().nullable(),
});

export const seriesPointSchema = z.strictObject({
  id,
  name: z.string().nullable(),
  time: isoTime,
  createdAt: isoTime,
  status: runStatus,
  commit: z.string().nullable(),
  branch: z.string().nullable(),
  pullRequest: z.number().int().nullable(),
  flags: z.array(validityFlag),
  valid: z.boolean(),
  latency: pointValueSchema.extend({ metric: z.string() }),
  throughput: pointValueSchema,
  failureShare: pointValueSchema,
  costPerThousand: pointValueSchema,
});

export const seriesChangeSchema = z.strictObject({
  metric: z.enum(CHANGE_METRICS),
  /** The first run after the change: its index in `points` and its id. */
  index: z.number().int().nonnegative(),
  runId: id,
  before: z.number(),
  after: z.number(),
  /** after / before - 1. */
  relative: z.number(),
  /** The commits of the last run before and the first from the change on (null where unknown). */
  commits: z.strictObject({ lastBefore: z.string().nullable(), firstAfter: z.string().nullable(), sameCommit: z.boolean() }),
  /** The runs either side its comparison opens: /compare?g=Before:<ids>&g=After:<ids>. */
  beforeRunIds: z.array(id),
  afterRunIds: z.array(id),
});

export const seriesPointsSchema = z.strictObject({
  series: seriesItemSchema.omit({ runs: true, lastRun: true }),
  metric: z.string(),
  points: z.array(seriesPointSchema),
  truncated: z.boolean(),
  changes: z.array(seriesChangeSchema),
});
export type SeriesPointsAnswer = z.output<typeof seriesPointsSchema>;
