// What the API returns for a comparison (runs or study cells side by side) and for a public share link.
import { groupVerdictShape, runSummarySchema, SHARE_KINDS, validityFlag } from "@opsbench/core";
import type { gateVerdictSchema } from "@opsbench/api";
import { z } from "zod";
import type { CompareData } from "../../../features/compare/compare-data";
import { comparisonGroupsInput, comparisonStudyInput } from "../../../features/compare/comparison-input";
import type { PublicShare } from "../../../features/share/public-share";
import type { Fits } from "./same-type";
import { timeBucketSchema } from "./runs";
import { id, isoTime, runStatus } from "./wire";

/**
 * POST /api/v1/comparisons: `{ groups }` or `{ studyId }`. The handler picks the branch by key
 * (comparisonInputSchema) so a mistake is reported at its own path rather than as "invalid union".
 */
export const comparisonBody = z.union([comparisonStudyInput, comparisonGroupsInput]);

/** GET /api/v1/comparisons and its export: the selection in the query (`g=<label>:<runId>,<runId>` per group, or `study=<id>`). */
export const comparisonQuery = z.object({
  g: z.union([z.string(), z.array(z.string())]).optional(),
  study: id.optional(),
  /** The verdicts' practical-equivalence margin, percent of the baseline (default 5). */
  margin: z.string().optional(),
  /**
   * A stated run-to-run coefficient of variation, percent (e.g. 5): single runs a side are then judged between
   * configurations with their intervals widened by it; without it they are "within-run" and never significant.
   */
  runCv: z.string().optional(),
  /** `1`: runs with validity flags that leave them out of the verdicts (partial, dropped iterations, ...) are judged too. */
  includeFlagged: z.enum(["1", "0", "true", "false"]).optional(),
});

const comparisonGroupSchema = z.strictObject({
  label: z.string(),
  target: z.strictObject({ name: z.string(), kind: z.string() }).nullable(),
  workload: z.strictObject({ name: z.string() }).nullable(),
  runs: z.array(
    z.strictObject({
      id,
      repetition: z.number().int(),
      status: runStatus,
      summary: runSummarySchema.nullable(),
      flags: z.array(validityFlag),
    }),
  ),
  merged: runSummarySchema.nullable(),
  series: z.array(timeBucketSchema),
  distribution: z.array(z.strictObject({ ms: z.number(), cumulative: z.number() })),
  infra: z.array(z.strictObject({ runId: id, offsetSeconds: z.number(), replicas: z.number(), cpuPercent: z.number().nullable() })),
  byRequest: z.array(z.strictObject({ name: z.string(), requests: z.number(), p50: z.number(), p95: z.number(), p99: z.number() })),
});

const metricVerdictSchema = z.strictObject(groupVerdictShape);

const breakEvenSchema = z.strictObject({
  unit: z.string(),
  periodSeconds: z.number(),
  points: z.array(
    z.strictObject({ rps: z.number(), nodes: z.number().nullable(), serverful: z.number().nullable(), serverless: z.number() }),
  ),
  crossings: z.array(z.strictObject({ rps: z.number(), direction: z.enum(["serverless-dearer", "serverless-cheaper"]) })),
  breakEvenRps: z.number().nullable(),
  serverfulCapacityRps: z.number().nullable(),
});

export const compareDataSchema = z.strictObject({
  title: z.string().nullable(),
  generatedAt: isoTime,
  groups: z.array(comparisonGroupSchema),
  verdicts: z.array(metricVerdictSchema),
  /** Runs left out of the verdicts for their validity flags, unless includeFlagged. */
  verdictExclusions: z.strictObject({
    includeFlagged: z.boolean(),
    excluded: z.array(z.strictObject({ group: z.string(), runId: id, flags: z.array(z.string()) })),
  }),
  costs: z.array(
    z
      .strictObject({
        unit: z.string(),
        total: z.number().nullable(),
        perThousandRequests: z.number().nullable(),
        source: z.string(),
        assumptions: z.array(z.string()),
      })
      .nullable(),
  ),
  breakEvens: z.array(
    z.strictObject({ serverful: z.string(), serverless: z.string(), capacityPerNodeRps: z.number(), result: breakEvenSchema }),
  ),
});
// The CLI's gate reads a part of each verdict with @opsbench/api's gateVerdictSchema: the full one must fit it.
true satisfies Fits<z.output<typeof metricVerdictSchema>, z.output<typeof gateVerdictSchema>>;
// One way: the stored runs' flags are still typed `unknown` in the comparison view.
true satisfies Fits<z.output<typeof compareDataSchema>, CompareData>;

/** GET /api/v1/public/shares/{token}: what a share link shows anyone who has it. */
export const publicShareSchema = z.strictObject({
  kind: z.enum(SHARE_KINDS),
  title: z.string().nullable(),
  comparison: compareDataSchema,
});
true satisfies Fits<z.output<typeof publicShareSchema>, PublicShare>;
