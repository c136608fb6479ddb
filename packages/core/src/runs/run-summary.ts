// A run's summary (runs.summary): what analysing its per-second aggregates gave,
// plus what the load generator did, k6's thresholds, app checks and the cost.
// The schema reads the stored JSON; the types are inferred from it.
import { z } from "zod";
import { runCostSchema } from "../cost/run-cost";
import { LOAD_WINDOW_SOURCE_IDS } from "../windows/load-window";
import { maxThroughputSchema } from "./throughput";
import { rateSourceSchema } from "../workloads/workload-spec";

export const latencyMsSchema = z.object({
  min: z.number(),
  avg: z.number(),
  p50: z.number(),
  p90: z.number(),
  p95: z.number(),
  p99: z.number(),
  max: z.number(),
});
export type LatencyMs = z.infer<typeof latencyMsSchema>;

export const loadTotalsSchema = z.object({
  /** k6's own CPU use over the load, as a share of the machine's cores (see LOAD_GENERATOR_CPU_LIMIT). */
  generatorCpuPercent: z.number().nullable().optional(),
  maxVUs: z.number(),
  iterations: z.number(),
  droppedIterations: z.number(),
  bytesSent: z.number(),
  bytesReceived: z.number(),
  /** A run on several load generators: each one's execution segment, CPU and requests (docs/generators.md). */
  generators: z
    .array(
      z.object({
        segment: z.number().int(),
        count: z.number().int(),
        status: z.string(),
        worker: z.string().nullable(),
        cpuPercent: z.number().nullable(),
        requests: z.number(),
        /** When a lost generator was last heard of (ISO time). */
        lostAt: z.string().nullable(),
        /** The database server's clock minus the generator's, at its start and end (ms). */
        clockOffsetMs: z.object({ start: z.number().nullable(), end: z.number().nullable() }),
      }),
    )
    .optional(),
});
export type LoadTotals = z.infer<typeof loadTotalsSchema>;
export type GeneratorTotals = NonNullable<LoadTotals["generators"]>[number];

export const thresholdOutcomeSchema = z.object({ metric: z.string(), expression: z.string(), ok: z.boolean() });
export type ThresholdOutcome = z.infer<typeof thresholdOutcomeSchema>;

/** An app-level check after the load (e.g. the shop's consistency: stock + sold = initial). */
export const appCheckSchema = z.object({ name: z.string(), ok: z.boolean(), message: z.string(), detail: z.unknown().optional() });
export type AppCheckOutcome = z.infer<typeof appCheckSchema>;

export const runSummarySchema = z.object({
  requests: z.number(),
  /** Requests k6 counted as failed (expected_response=false). */
  failures: z.number(),
  /** Share of responses with a 2xx status, in percent (the IoT study's goodput). */
  goodput: z.number(),
  /** Share of requests answered with a 2xx status, in percent (study 001's success ratio). */
  successRatio: z.number(),
  /** Share of requests k6 did not count as failed (its expected_response), in percent. */
  expectedResponseRatio: z.number().optional(),
  /** Mean completed requests per second over the load window. */
  rps: z.number(),
  durationSeconds: z.number(),
  /** Which span durationSeconds is: k6's clock (test start to last sample, or per-second rows) or the worker's. */
  durationSource: z.enum(LOAD_WINDOW_SOURCE_IDS).optional(),
  /** Latency of every response, successful or not (k6's http_req_duration). */
  latencyMs: latencyMsSchema,
  /**
   * Latency of successful responses only (k6's http_req_duration{expected_response:true}): what latency
   * verdicts and tables show first; null when no response succeeded, absent in summaries made before it.
   */
  successLatencyMs: latencyMsSchema.nullable().optional(),
  /** Where a "% of a measured maximum" rate came from (the workload's resolved rateSource). */
  rateSource: rateSourceSchema.optional(),
  /** Seconds from the load start left out of this summary (the warm-up: the study's, else detected); absent: none. */
  warmupSeconds: z.number().optional(),
  /**
   * How the warm-up was detected when none was stated (MSER-5 on 5 s batches of the successful responses'
   * mean latency; windows/analysis-window.ts): the batches looked at and the truncation point. Absent: stated, or
   * a summary made before detection.
   */
  warmupDetection: z.object({ rule: z.literal("MSER-5"), batches: z.number().int(), truncatedBatches: z.number().int() }).optional(),
  /**
   * A closed-loop run (VUs that wait for each answer): its latency tail is understated when the target stalls
   * (coordinated omission); the corrected latency of successful responses when the pacing is constant.
   */
  coordinatedOmission: z
    .object({
      closedLoop: z.literal(true),
      expectedIntervalMs: z.number().nullable(),
      correctedLatencyMs: z.object({ p50: z.number(), p90: z.number(), p95: z.number(), p99: z.number(), max: z.number() }).nullable(),
    })
    .optional(),
  /** Requests by status class: "2xx".."5xx", or without a response "timeout", "connection" (DNS, TCP) or "error". */
  byClass: z.record(z.string(), z.number()),
  /** Highest 10 s moving average of successful (2xx) responses per second (study 004); merged repetitions: the mean of the runs' maxima. */
  maxThroughput: maxThroughputSchema.nullable().optional(),
  /** What the load generator did, from k6's per-second metrics. */
  load: loadTotalsSchema.optional(),
  /** k6 thresholds and whether each held. */
  thresholds: z.array(thresholdOutcomeSchema).optional(),
  /** What the run would cost on the platform its target stands for (the target's cost model). */
  cost: runCostSchema.optional(),
  /** App-level checks after the load. */
  appChecks: z.array(appCheckSchema).optional(),
});
export type RunSummary = z.infer<typeof runSummarySchema>;

/**
 * What a public share link shows of a summary: the measured figures only; not how
 * the target is priced (the cost model), k6's threshold expressions, what app
 * checks found inside the app, or the run a relative rate was taken from (rateSource).
 * Status classes are plain short words (nothing a stored row could smuggle through as a key).
 */
export const publicRunSummarySchema = runSummarySchema.omit({ cost: true, appChecks: true, thresholds: true, rateSource: true }).extend({
  byClass: runSummarySchema.shape.byClass.transform((byClass) =>
    Object.fromEntries(Object.entries(byClass).filter(([k]) => /^[0-9a-z]{1,16}$/.test(k))),
  ),
});
export type PublicRunSummary = z.infer<typeof publicRunSummarySchema>;

/** k6's end-of-test summary (runs.k6_summary, from --summary-export): only what opsbench reads is typed, the rest kept. */
export const k6SummarySchema = z.looseObject({
  state: z.looseObject({ testRunDurationMs: z.number().optional() }).optional(),
  /** Per metric: its values and, under `thresholds`, each expression and whether it was crossed (`true`). */
  metrics: z.record(z.string(), z.looseObject({ thresholds: z.record(z.string(), z.boolean()).optional() })).optional(),
});
export type K6Summary = z.infer<typeof k6SummarySchema>;

/** Latency of successful responses, what latency figures show first; all responses' for summaries made before they were kept apart or when none succeeded. */
export const successFirstLatency = (s: Pick<RunSummary, "latencyMs" | "successLatencyMs">): LatencyMs => s.successLatencyMs ?? s.latencyMs;
