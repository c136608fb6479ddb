// A comparison as it is stored for reuse (comparison_cache.view): the shape packages/db's
// ComparisonView has, checked when it is written and read back.
import { z } from "zod";
import { STORED_QUANTILE_KEYS, type StoredQuantileKey } from "../metrics/metric-catalog";
import { runSummarySchema } from "../runs/run-summary";
import { validityFlags } from "../runs/validity-flags";

/**
 * A bucket of a series (latency-summary.ts's TimeBucket): a comparison's group series, and the API's run and
 * comparison answers (@opsbench/api uses this one).
 */
export const timeBucketSchema = z.strictObject({
  offsetSeconds: z.number(),
  requests: z.number(),
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
  p99Ms: z.number().nullable(),
  goodput: z.number().nullable(),
});

/** A number per stored quantile (a request name's p50, p95, ...: compare/request-latency.ts). */
const storedQuantileNumbers = Object.fromEntries(STORED_QUANTILE_KEYS.map((q) => [q, z.number()])) as Record<
  StoredQuantileKey,
  z.ZodNumber
>;

const pair = z.tuple([z.number(), z.number()]);

/** A verdict's fields (statistics/verdict-method.ts's GroupVerdict): the stored view and the API's answers check them. */
export const groupVerdictShape = {
  metric: z.string(),
  baseline: z.string(),
  candidate: z.string(),
  method: z.enum(["welch-t", "single-run-t", "bootstrap", "moving-block-bootstrap", "none"]),
  methodLabel: z.string(),
  basis: z.enum(["runs", "seconds", "mixed"]),
  /** "within-run": single runs without a stated run-to-run variance; never significant. */
  scope: z.enum(["between-configurations", "within-run"]),
  runToRunCv: z.number().nullable(),
  samples: pair,
  scale: z.enum(["difference", "ratio", "log-odds"]),
  /** "primary": judged in the family; "descriptive": shown, never significant. */
  role: z.enum(["primary", "descriptive"]),
  estimate: z.number().nullable(),
  /** The baseline's value, so a verdict can be decided again under another margin. */
  baselineMean: z.number().nullable(),
  low: z.number().nullable(),
  high: z.number().nullable(),
  level: z.number(),
  margin: z.number(),
  marginUnit: z.enum(["relative", "points"]),
  standardError: z.number().nullable(),
  df: z.number().nullable(),
  pValue: z.number().nullable(),
  adjustedPValue: z.number().nullable(),
  family: z.string().nullable(),
  familySize: z.number(),
  detectable: z.number().nullable(),
  effect: z.number(),
  power: z.number().nullable(),
  runsNeeded: z.number().nullable(),
  outcome: z.enum(["candidate-better", "baseline-better", "equivalent", "inconclusive", "no-verdict"]),
  significant: z.boolean(),
  seed: z.number().nullable(),
  resamples: z.number().nullable(),
  blockLengths: pair.nullable(),
  reason: z.string().nullable(),
  text: z.string(),
};
export const groupVerdictSchema = z.strictObject(groupVerdictShape);

/** One group of a comparison: its runs, their merged summary, series, latency distribution, infra and requests. */
export const comparisonGroupSchema = z.strictObject({
  label: z.string(),
  target: z.strictObject({ name: z.string(), kind: z.string() }).nullable(),
  workload: z.strictObject({ name: z.string() }).nullable(),
  runs: z.array(
    z.strictObject({
      id: z.uuid(),
      repetition: z.number().int(),
      status: z.string(),
      summary: runSummarySchema.nullable(),
      flags: validityFlags,
    }),
  ),
  merged: runSummarySchema.nullable(),
  series: z.array(timeBucketSchema),
  distribution: z.array(z.strictObject({ ms: z.number(), cumulative: z.number() })),
  infra: z.array(z.strictObject({ runId: z.uuid(), offsetSeconds: z.number(), replicas: z.number(), cpuPercent: z.number().nullable() })),
  byRequest: z.array(z.strictObject({ name: z.string(), requests: z.number(), ...storedQuantileNumbers })),
});

/**
 * Runs left out of the verdicts for their validity flags (measured-cells.ts VERDICT_EXCLUDING_FLAGS), unless asked for.
 * dropShare: the share of planned iterations a run left out for dropped iterations dropped (over
 * DROPPED_ITERATIONS_TOLERANCE), when known; absent for a flag stored without it or in views stored before it.
 */
export const verdictExclusionsSchema = z.strictObject({
  includeFlagged: z.boolean(),
  excluded: z.array(
    z.strictObject({ group: z.string(), runId: z.uuid(), flags: z.array(z.string()), dropShare: z.number().min(0).max(1).optional() }),
  ),
});
export type VerdictExclusions = z.infer<typeof verdictExclusionsSchema>;

export const comparisonViewSchema = z.object({
  groups: z.array(comparisonGroupSchema),
  verdicts: z.array(groupVerdictSchema),
  verdictExclusions: verdictExclusionsSchema,
  /** The verdict method's version (VERDICT_VERSION) the verdicts were decided by, so a change of method shows. */
  verdictVersion: z.number().int(),
});
export type StoredComparisonView = z.infer<typeof comparisonViewSchema>;
