// The worker's writes to a run: the conditional claim, step records, and bulk
// inserts of the per-second aggregates. The Run row is the truth; the queue only delivers.
import {
  infraPointDetailSchema,
  k6SummarySchema,
  loadAdmission as loadAdmissionSchema,
  type LoadAdmission,
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
  type ValidityFlag,
} from "@opsbench/core";
import type { Db } from "../client";
import { Prisma } from "../generated/prisma/client";
import type { RunStatus } from "../generated/prisma/enums";
import { jsonInput, jsonInputOfUnknown } from "../json-column";
import { workspaceHostToken } from "../workspaces/host-verification";
import { addRunFlags } from "./run-flags";
import { parseRunJson } from "./run-json";
import { limitsScope } from "../scope/limits-scope";

/** One of the provider's observations, as stored in infra_points. */
export interface InfraRow {
  ts: Date;
  replicas: number;
  cpuPercent?: number | null;
  detail?: unknown;
}

/** What the result writer stores at once: one transaction, so a batch cut off by an outage is retried whole. */
export interface ResultBatch {
  http: K6HttpLine[];
  load: K6LoadLine[];
  metrics: K6MetricLine[];
  infra: InfraRow[];
}

/** A step row with its detail parsed. */
const parseStep = <S extends { detail: unknown }>({ detail, ...step }: S) => ({
  ...step,
  detail: readStoredJson(stepDetailSchema, detail),
});

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
  const resultRows = (lines: K6HttpLine[]) => lines.map((l) => ({ ...ofSecond(l), ...resultColumns(l) }));
  const loadRows = (lines: K6LoadLine[]) => lines.map((l) => ({ ...ofSecond(l), ...loadColumns(l) }));
  const metricRows = (lines: K6MetricLine[]) => lines.map((l) => ({ ...ofSecond(l), ...metricColumns(l) }));
  const infraRows = (points: InfraRow[]) =>
    points.map((p) => ({
      runId,
      ts: p.ts,
      replicas: p.replicas,
      cpuPercent: p.cpuPercent ?? null,
      ...(p.detail === undefined ? {} : { detail: jsonInputOfUnknown(infraPointDetailSchema, p.detail) }),
    }));
  return {
    /** The run with its JSON parsed (targetSpec: the target as copied when the run was made) and its steps. */
    get: async () => {
      const { steps, ...run } = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { steps: true } });
      return { ...parseRunJson(run), steps: steps.map(parseStep) };
    },

    /** What a load generator of a split run needs of the run (segments/generator.ts in the worker). */
    loadPlan: () =>
      db.run.findUniqueOrThrow({ where: { id: runId }, select: { workloadSpec: true, workspaceId: true, loadAdmission: true } }),

    /** The run's per-second load rows, of every generator (several write rows of the same second). */
    loadSeconds: () => db.loadSecond.findMany({ where: { runId } }),

    /** The limits of the run's workspace as they are now (an owner may have lowered them since the run was created). */
    limits: async () => {
      const { workspaceId } = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { workspaceId: true } });
      return limitsScope(db, workspaceId).get();
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

    /** The run's workspace's proof-of-ownership token for `host` (host-verification.ts). */
    hostToken: async (host: string) => {
      const { workspaceId } = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { workspaceId: true } });
      return workspaceHostToken(db, workspaceId, host);
    },

    /** How the run's load host was admitted (null: none to admit, a target opsbench started on this machine). */
    setLoadAdmission: (admission: LoadAdmission | null) =>
      db.run.update({
        where: { id: runId },
        data: { loadAdmission: admission === null ? Prisma.DbNull : jsonInput(loadAdmissionSchema, admission) },
      }),

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

    /** A line on the run's timeline, stamped when it happened (a write delayed by an outage keeps its time). */
    event: (level: "info" | "warn" | "error", message: string, data?: unknown, ts = new Date()) =>
      db.runEvent.create({
        data: { runId, ts, level, message, ...(data === undefined ? {} : { data: jsonInputOfUnknown(runEventDataSchema, data) }) },
      }),

    /** Adds validity flags to the run (one per code). */
    flag: (...flags: ValidityFlag[]) => addRunFlags(db, runId, flags),
    /** Keeps the files the script's handleSummary() wrote (already within the runner's caps); a second call replaces them. */
    saveArtifacts: async (artifacts: ReadonlyArray<{ name: string; size: number; base64: string }>) => {
      await db.$transaction([
        db.runArtifact.deleteMany({ where: { runId } }),
        db.runArtifact.createMany({
          data: artifacts.map((a) => ({ runId, name: a.name, size: a.size, content: Buffer.from(a.base64, "base64") })),
        }),
      ]);
    },

    /**
     * A batch of the result writer, in one transaction. Its start may wait for a database that is down (the
     * worker's pool retries connecting) for as long as `maxWaitMs`, instead of Prisma's 2 s.
     */
    appendBatch: async ({ http, load, metrics, infra }: ResultBatch, maxWaitMs = 2000) => {
      await db.$transaction(
        async (tx) => {
          if (http.length) await tx.resultSecond.createMany({ data: resultRows(http) });
          if (load.length) await tx.loadSecond.createMany({ data: loadRows(load) });
          if (metrics.length) await tx.metricSecond.createMany({ data: metricRows(metrics) });
          if (infra.length) await tx.infraPoint.createMany({ data: infraRows(infra) });
        },
        { maxWait: maxWaitMs, timeout: 60_000 },
      );
    },

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
