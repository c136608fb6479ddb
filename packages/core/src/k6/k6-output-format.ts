import { z } from "zod";
import { METRIC_KINDS } from "../runs/metric-summary";
import { thresholdSourcesSchema } from "./k6-merged-thresholds";

// Lines written by opsbench-engine's opsbench output (engine/internal/output); the same as the k6 output extension opsbench built before.
// Version 4 added "metric" lines; version 3 outputs (older builds) are still read.
/**
 * The longest name a series (a request name, a check, a script's own metric) is stored under, in characters. Every
 * line carries its name, every second, so a script naming checks after 50 KB of data would store 50 KB a second: a
 * longer name is folded into "other" (requests) or OTHER_METRIC_SERIES by the engine's output (which counts UTF-8
 * bytes, never fewer), the fold of a stock k6's output and the worker; the ingest endpoint refuses it.
 */
export const MAX_SERIES_NAME_LENGTH = 256;

/** The series checks and a script's own metrics are counted under beyond the caps (names per kind, name length). */
export const OTHER_METRIC_SERIES = "(other)";

/** A series' name as it is stored: itself, or `other` when it is longer than MAX_SERIES_NAME_LENGTH. */
export const seriesNameWithin = (name: string, other: string): string => (name.length > MAX_SERIES_NAME_LENGTH ? other : name);

export const k6MetaLine = z.object({
  t: z.literal("meta"),
  version: z.union([z.literal(3), z.literal(4)]),
  alpha: z.number(),
  minValueMs: z.number(),
});
export const k6HttpLine = z.object({
  t: z.literal("http"),
  s: z.number().int(),
  name: z.string(),
  class: z.string(),
  n: z.number().int(),
  fail: z.number().int(),
  sum: z.number(),
  min: z.number(),
  max: z.number(),
  /** Buckets, encoded as in histogram-encoding.ts, in base64. */
  b: z.string(),
});
export const k6LoadLine = z.object({
  t: z.literal("load"),
  s: z.number().int(),
  vus: z.number(),
  vusMax: z.number(),
  sent: z.number(),
  received: z.number(),
  iterations: z.number(),
  dropped: z.number(),
});
/**
 * One second of a check (k6's "checks" split by check name) or of a script's
 * own metric (METRIC_KINDS, runs/metric-summary.ts).
 */
export const k6MetricLine = z.object({
  t: z.literal("metric"),
  s: z.number().int(),
  kind: z.enum(METRIC_KINDS),
  name: z.string(),
  /** "ms" (time), "B" (data) or "" (a plain number). */
  unit: z.string(),
  n: z.number().int(),
  pass: z.number().int(),
  sum: z.number(),
  min: z.number(),
  max: z.number(),
  last: z.number(),
  /** Trends only: buckets as in "http" lines. */
  b: z.string().optional(),
});
/**
 * The last line. Newer builds add k6's clock (epoch ms): when the output started
 * (k6 about to start the test), and the first and last sample (the last not
 * counting k6's once-a-second VU-count ticks, which go on after the test).
 */
export const k6EndLine = z.object({
  t: z.literal("end"),
  startMs: z.number().optional(),
  firstMs: z.number().optional(),
  lastMs: z.number().optional(),
});
/**
 * Written once, right after "meta" and before any VU exists (builds since the plan check): what k6 is about to run,
 * as k6 run itself derived it (engine/internal/output). The runner stops a test whose plan goes above
 * the run's limits or above what `k6 inspect` said of the same script; readers of results ignore it.
 */
export const k6PlanLine = z.looseObject({
  t: z.literal("plan"),
  /** The most VUs of the whole test (planned, and those arrival-rate executors may add). */
  maxVUs: z.number(),
  /** The same for this k6's execution segment. */
  segmentVUs: z.number().optional(),
  /** How long the test plans to run, graceful stops included. */
  durationSeconds: z.number(),
  /** The highest iterations per second an arrival-rate scenario starts (whole test). */
  peakArrivalRate: z.number(),
  scenarios: z.array(z.string()).optional(),
  /** The script's thresholds as k6 read them (metric -> expressions), judged on the merged result of an external run. */
  thresholds: thresholdSourcesSchema.optional(),
});
export const k6OutputLine = z.discriminatedUnion("t", [k6MetaLine, k6HttpLine, k6LoadLine, k6MetricLine, k6EndLine, k6PlanLine]);
export type K6OutputLine = z.infer<typeof k6OutputLine>;
export type K6HttpLine = z.infer<typeof k6HttpLine>;
export type K6LoadLine = z.infer<typeof k6LoadLine>;
export type K6MetricLine = z.infer<typeof k6MetricLine>;
export type K6EndLine = z.infer<typeof k6EndLine>;
export type K6PlanLine = z.infer<typeof k6PlanLine>;
