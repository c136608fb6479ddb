// The worker's writes to a run: the conditional claim, step records, and bulk
// inserts of the per-second aggregates. The Run row is the truth; the queue only delivers.
import {
  infraPointDetailSchema,
  k6SummarySchema,
  readStoredJson,
  runEventDataSchema,
  runSummarySchema,
  stepDetailSchema,
  type K6HttpLine,
  type K6LoadLine,
  type K6MetricLine,
  type RunSummary,
  type StepDetail,
  type StepNameValue,
} from "@opsbench/core";
import type { Db } from "./client";
import { Prisma } from "./generated/prisma/client";
import type { RunStatus } from "./generated/prisma/enums";
import { jsonInput, jsonInputOfUnknown } from "./json-column";
import { parseRunJson } from "./run-json";

/** A step row with its detail parsed. */
const parseStep = <S extends { detail: unknown }>({ detail, ...step }: S) => ({
  ...step,
  detail: readStoredJson(stepDetailSchema, detail),
});

/** Runs a bulk insert of the rows, or none when there are none. */
const insertAll = (rows: unknown[], insert: () => Promise<{ count: number }>) =>
  rows.length === 0 ? Promise.resolve({ count: 0 }) : insert();

/**
 * Which load generator writes (a run on several has one execution segment each) and how far its
 * clock is off the database server's, in whole seconds: its rows are stored on the corrected second.
 */
export interface SegmentOfRows {
  segment: number;
  clockShiftSeconds: number;
}
const SINGLE_GENERATOR: SegmentOfRows = { segment: 0, clockShiftSeconds: 0 };

/** A k6 output line's columns in its per-second table (beside the run and the second). */
const resultColumns = (l: K6HttpLine) => ({
  name: l.name,
  class: l.class,
  requests: l.n,
  failures: l.fail,
  sumMs: l.sum,
  minMs: l.min,
  maxMs: l.max,
  buckets: Buffer.from(l.b, "base64"),
});
const loadColumns = (l: K6LoadLine) => ({
  vus: Math.round(l.vus),
  vusMax: Math.round(l.vusMax),
  bytesSent: l.sent,
  bytesReceived: l.received,
  iterations: Math.round(l.iterations),
  droppedIterations: Math.round(l.dropped),
});
const metricColumns = (l: K6MetricLine) => ({
  kind: l.kind,
  name: l.name,
  unit: l.unit,
  count: l.n,
  passes: l.pass,
  sum: l.sum,
  min: l.min,
  max: l.max,
  last: l.last,
  buckets: l.b === undefined ? null : Buffer.from(l.b, "base64"),
});

export function runStore(db: Db, runId: string, { segment, clockShiftSeconds }: SegmentOfRows = SINGLE_GENERATOR) {
  /** The run, the (corrected) second a k6 output line is about, and the segment that wrote it. */
  const ofSecond = (l: { s: number }) => ({ runId, ts: new Date((l.s + clockShiftSeconds) * 1000), segment });
  return {
    /** The run with its JSON parsed (targetSpec: the target as copied when the run was made) and its steps. */
    get: async () => {
      const { steps, ...run } = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { steps: true } });
      return { ...parseRunJson(run), steps: steps.map(parseStep) };
    },

    /** QUEUED -> PROVISIONING, only if no other worker got there first. */
    claim: async () => {
      const r = await db.run.updateMany({
        where: { id: runId, status: "QUEUED" },
        data: { status: "PROVISIONING", startedAt: new Date() },
      });
      return r.count === 1;
    },

    setStatus: (status: RunStatus, data: Partial<Prisma.RunUpdateManyMutationInput> = {}) =>
      db.run.update({ where: { id: runId }, data: { status, ...data } }),

    /** Whether someone asked to abort the run (POST /api/v1/runs/<id>/abort). */
    abortRequested: async () =>
      (await db.run.findUniqueOrThrow({ where: { id: runId }, select: { abortRequestedAt: true } })).abortRequestedAt !== null,

    update: (data: Prisma.RunUpdateManyMutationInput) => db.run.update({ where: { id: runId }, data }),

    step: async (name: StepNameValue) => {
      const step = await db.runStep.findUnique({ where: { runId_name: { runId, name } } });
      return step ? parseStep(step) : null;
    },

    startStep: (name: StepNameValue) =>
      db.runStep.upsert({
        where: { runId_name: { runId, name } },
        create: { runId, name, status: "RUNNING" },
        update: { status: "RUNNING", startedAt: new Date(), finishedAt: null, error: null },
      }),

    finishStep: (name: StepNameValue, outcome: { status: "SUCCEEDED" | "FAILED" | "SKIPPED"; detail?: unknown; error?: string }) =>
      db.runStep.update({
        where: { runId_name: { runId, name } },
        data: {
          status: outcome.status,
          finishedAt: new Date(),
          error: outcome.error ?? null,
          ...(outcome.detail === undefined ? {} : { detail: jsonInputOfUnknown(stepDetailSchema, outcome.detail) }),
        },
      }),

    /** Records what a step has made so far (e.g. pids), before it finishes. */
    stepDetail: (name: StepNameValue, detail: StepDetail) =>
      db.runStep.update({ where: { runId_name: { runId, name } }, data: { detail: jsonInput(stepDetailSchema, detail) } }),

    event: (level: "info" | "warn" | "error", message: string, data?: unknown) =>
      db.runEvent.create({
        data: { runId, level, message, ...(data === undefined ? {} : { data: jsonInputOfUnknown(runEventDataSchema, data) }) },
      }),

    appendResults: (lines: K6HttpLine[]) =>
      insertAll(lines, () => db.resultSecond.createMany({ data: lines.map((l) => ({ ...ofSecond(l), ...resultColumns(l) })) })),

    appendLoad: (lines: K6LoadLine[]) =>
      insertAll(lines, () => db.loadSecond.createMany({ data: lines.map((l) => ({ ...ofSecond(l), ...loadColumns(l) })) })),

    /** Checks and a script's own metrics, one row per second x kind x name. */
    appendMetrics: (lines: K6MetricLine[]) =>
      insertAll(lines, () => db.metricSecond.createMany({ data: lines.map((l) => ({ ...ofSecond(l), ...metricColumns(l) })) })),

    appendInfra: (points: Array<{ ts: Date; replicas: number; cpuPercent?: number | null; detail?: unknown }>) =>
      insertAll(points, () =>
        db.infraPoint.createMany({
          data: points.map((p) => ({
            runId,
            ts: p.ts,
            replicas: p.replicas,
            cpuPercent: p.cpuPercent ?? null,
            ...(p.detail === undefined ? {} : { detail: jsonInputOfUnknown(infraPointDetailSchema, p.detail) }),
          })),
        }),
      ),

    /** Results of an earlier, interrupted attempt are dropped before load starts again. */
    clearResults: () =>
      db.$transaction([
        db.resultSecond.deleteMany({ where: { runId } }),
        db.loadSecond.deleteMany({ where: { runId } }),
        db.infraPoint.deleteMany({ where: { runId } }),
        db.metricSecond.deleteMany({ where: { runId } }),
      ]),

    /** The analysed summary, and k6's own (kept as k6 wrote it; null when k6 wrote none). */
    saveSummary: (summary: RunSummary, k6Summary: unknown) => {
      const k6 = k6Summary == null ? null : readStoredJson(k6SummarySchema, k6Summary);
      return db.run.update({
        where: { id: runId },
        data: { summary: jsonInput(runSummarySchema, summary), k6Summary: k6 === null ? Prisma.DbNull : jsonInput(k6SummarySchema, k6) },
      });
    },
  };
}
export type RunStore = ReturnType<typeof runStore>;
