// What the API takes and returns for a comparison (runs or study cells side by side): the selection (body or
// query), the verdicts' margin and run-to-run CV, the export's table, and the comparison answered.
import {
  primaryMetricKey,
  comparisonGroupSchema,
  DEFAULT_EQUIVALENCE_MARGIN,
  groupVerdictSchema,
  groupVerdictShape,
  verdictExclusionsSchema,
} from "@opsbench/core";
import { z } from "zod";
import type { Fits } from "./same-type";
import { id, isoTime } from "./wire";

export const MAX_GROUPS = 12;
export const MAX_RUNS = 200;

const runId = z.uuid({ message: "not a run id (expected a UUID)" });

export const comparisonGroupInput = z
  .object({
    label: z.string().trim().min(1).max(80).optional(),
    runIds: z.array(runId).min(1, { message: "a group needs at least one run" }).max(MAX_RUNS),
  })
  .strict();

/** Judge runs with validity flags that would leave them out of the verdicts (partial, dropped iterations, ...) too. */
const includeFlagged = z.boolean({ message: "includeFlagged: expected true or false" }).optional();

/** Groups of run ids (each group one target x workload, or any runs the user put together). */
export const comparisonGroupsInput = z
  .object({
    groups: z.array(comparisonGroupInput).min(1, { message: "give at least one group" }).max(MAX_GROUPS),
    includeFlagged,
  })
  .strict()
  .superRefine((v, ctx) => {
    const seen = new Map<string, string>();
    for (const [gi, g] of v.groups.entries())
      for (const [ri, id] of g.runIds.entries()) {
        const where = `groups.${gi}.runIds.${ri}`;
        if (seen.has(id))
          ctx.addIssue({ code: "custom", path: ["groups", gi, "runIds", ri], message: `run ${id} is already in ${seen.get(id)}` });
        else seen.set(id, where);
      }
    const total = v.groups.reduce((s, g) => s + g.runIds.length, 0);
    if (total > MAX_RUNS)
      ctx.addIssue({ code: "custom", path: ["groups"], message: `${total} runs; at most ${MAX_RUNS} in one comparison` });
  });

/** Every cell of a study. */
export const comparisonStudyInput = z.object({ studyId: z.uuid({ message: "not a study id (expected a UUID)" }), includeFlagged }).strict();

export type ComparisonInput = z.infer<typeof comparisonGroupsInput> | z.infer<typeof comparisonStudyInput>;
export type ComparisonGroupRequest = z.infer<typeof comparisonGroupInput>;

/**
 * The schema for a raw input: `{ studyId }` or `{ groups }`. Chosen by key rather
 * than with a zod union, so a mistake is reported at its own path, not as "invalid union".
 */
export const comparisonInputSchema = (raw: unknown) =>
  typeof raw === "object" && raw !== null && "studyId" in raw ? comparisonStudyInput : comparisonGroupsInput;

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
  /** The metric judged in the verdicts' family (default p95); the others are descriptive, never significant. */
  primary: z.string().optional(),
  /** The difference, percent of the baseline, the verdicts' power and runs needed are stated for (default 10). */
  effect: z.string().optional(),
  /** The failure share's margin, percent of the baseline's failure odds (default 50): the SLO margin. */
  failureMargin: z.string().optional(),
});

/**
 * The verdicts' choices a query may make besides the margin and run-to-run CV: the primary metric, the stated effect
 * (percent) and the failure margin (percent of the odds). Parse with parseInput, so a bad one is a 422 naming it.
 */
export const verdictChoicesQuery = z.object({
  primary: primaryMetricKey.optional(),
  effect: z.coerce
    .number({ message: "effect: expected a number (percent of the baseline, e.g. 10)" })
    .gt(0, { message: "effect: must be above 0 (percent)" })
    .max(100, { message: "effect: at most 100 (percent)" })
    .optional(),
  failureMargin: z.coerce
    .number({ message: "failureMargin: expected a number (percent of the baseline's failure odds, e.g. 50)" })
    .min(0, { message: "failureMargin: must be at least 0 (percent)" })
    .max(1000, { message: "failureMargin: at most 1000 (percent: ten times the odds)" })
    .optional(),
});
export type VerdictChoices = z.output<typeof verdictChoicesQuery>;

/** The core's comparison options a query's choices stand for (percent to fractions). */
export const verdictChoiceOptions = (c: VerdictChoices) => ({
  ...(c.primary === undefined ? {} : { primaryMetric: c.primary }),
  ...(c.effect === undefined ? {} : { effect: c.effect / 100 }),
  ...(c.failureMargin === undefined ? {} : { failureMargin: c.failureMargin / 100 }),
});

export const MARGIN_PARAM = "margin";
export const DEFAULT_MARGIN_PERCENT = DEFAULT_EQUIVALENCE_MARGIN * 100;

/** The query's margin, in percent of the baseline: 0 to 50 (absent: the default). */
export const marginPercentQuery = z.coerce
  .number({ message: "margin: expected a number (percent of the baseline, e.g. 5)" })
  .min(0, { message: "margin: must be at least 0 (percent)" })
  .max(50, { message: "margin: at most 50 (percent); a wider margin calls almost anything equivalent" })
  .optional();

/** The API's form: `{ margin }` of a query, in percent (parse with parseInput, so a bad one is a 422 naming "margin"). */
export const marginQuery = z.object({ [MARGIN_PARAM]: marginPercentQuery });

export const RUN_CV_PARAM = "runCv";

/** The query's stated run-to-run CV, percent: 0 to 50 (absent: none, so single runs are "within-run"). */
export const runCvPercentQuery = z.coerce
  .number({ message: "runCv: expected a number (the run-to-run coefficient of variation, percent, e.g. 5)" })
  .min(0, { message: "runCv: must be at least 0 (percent)" })
  .max(50, { message: "runCv: at most 50 (percent)" })
  .optional();

/** The API's form: `{ runCv }` of a query, in percent (parse with parseInput, so a bad one is a 422 naming "runCv"). */
export const runCvQuery = z.object({ [RUN_CV_PARAM]: runCvPercentQuery });

/** The tables and series of a comparison that export as a file (apps/web/lib/export/comparison-tables.ts makes them). */
export const COMPARISON_TABLES = ["summary", "runs", "series", "distribution", "box", "infra", "verdicts", "cost"] as const;
export type ComparisonTableName = (typeof COMPARISON_TABLES)[number];

/** The export query's own part (format, table). */
export const comparisonExportQuery = z.object({ format: z.enum(["csv", "json"]).default("csv"), table: z.enum(COMPARISON_TABLES) });
/** GET /api/v1/comparisons/export: the selection and the export's own part. */
export const comparisonExportFullQuery = comparisonQuery.extend(comparisonExportQuery.shape);

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

/** The comparison answered: core's comparison view (groups, verdicts, exclusions) with a title, costs and break-evens. */
export const compareDataSchema = z.strictObject({
  title: z.string().nullable(),
  generatedAt: isoTime,
  groups: z.array(comparisonGroupSchema),
  verdicts: z.array(groupVerdictSchema),
  /** Runs left out of the verdicts for their validity flags, unless includeFlagged. */
  verdictExclusions: verdictExclusionsSchema,
  /** The verdict method's version the verdicts were decided by. */
  verdictVersion: z.number().int(),
  costs: z.array(
    z
      .strictObject({
        unit: z.string(),
        total: z.number().nullable(),
        /** Per 1,000 requests of any outcome: descriptive. */
        perThousandRequests: z.number().nullable(),
        /** Per 1,000 successful requests: what the tables and charts show. */
        perThousandSuccessfulRequests: z.number().nullable(),
        source: z.string(),
        assumptions: z.array(z.string()),
      })
      .nullable(),
  ),
  breakEvens: z.array(
    z.strictObject({
      serverful: z.string(),
      serverless: z.string(),
      /** One more serverful replica per this many successful req/s, from runs that saturated; null: offered load, capacity unknown. */
      capacityPerNodeRps: z.number().nullable(),
      capacity: z.strictObject({ known: z.boolean(), why: z.string(), replicas: z.number(), servedRps: z.number().nullable() }),
      result: breakEvenSchema,
    }),
  ),
});

/**
 * What the CLI's gate reads of a comparison's verdicts (GET /api/v1/comparisons): a part of the verdict, loose so
 * that more fields pass, and its outcome any text (a newer server's outcome still parses). The scope, because a
 * rule on a within-run verdict is inconclusive; the samples a side and the stated run-to-run CV, for the report.
 */
export const gateVerdictSchema = z
  .object(groupVerdictShape)
  .pick({
    metric: true,
    baseline: true,
    candidate: true,
    basis: true,
    scope: true,
    runToRunCv: true,
    samples: true,
    scale: true,
    estimate: true,
    low: true,
    high: true,
    level: true,
    baselineMean: true,
    text: true,
  })
  .extend({ outcome: z.string() });
export const comparisonVerdictsSchema = z.object({ verdicts: z.array(gateVerdictSchema) });
// The full verdict the API answers must fit what the gate reads.
true satisfies Fits<z.output<typeof groupVerdictSchema>, z.output<typeof gateVerdictSchema>>;
