// A workspace's results exporters (docs/exports.md): where each finished run's per-second series go (Prometheus remote
// write, OTLP over HTTP), the credential sealed with OPSBENCH_SECRET_KEY (never answered), and the log of each run sent
// to each. Beside the scope, what the export queue's producer and the worker use: recordRunExports writes one pending
// export per enabled exporter of the run's workspace, openExport gives the worker what one attempt needs (the secret
// opened), recordExportAttempt writes each attempt's outcome, runExportFacts reads the run's series.
import { randomUUID } from "node:crypto";
import {
  type ExportAttempt,
  exportAttemptsSchema,
  type ExporterAuth,
  type ExporterKind,
  decodeBuckets,
  emptyHistogram,
  mergeInto,
  quantile,
  type RunExportFacts,
  readStoredJson,
  runCostSchema,
} from "@opsbench/core";
import type { Db } from "../client";
import { NotFoundError } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { jsonInput } from "../json-column";
import { openSecret, sealContext, sealSecret } from "../workspaces/secret-box";
import { isUuid } from "./workspace-access";

export interface ExporterRow {
  id: string;
  name: string;
  kind: ExporterKind;
  url: string;
  auth: ExporterAuth;
  username: string | null;
  hasSecret: boolean;
  enabled: boolean;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export type ExportStatus = "pending" | "delivered" | "failed";

export interface ExportRow {
  id: string;
  exporterId: string;
  exporterName: string;
  runId: string;
  status: ExportStatus;
  attempts: number;
  attemptLog: ExportAttempt[];
  lastResponseCode: number | null;
  lastError: string | null;
  series: number | null;
  samples: number | null;
  createdAt: string;
  deliveredAt: string | null;
}

export interface ExporterInput {
  name: string;
  kind: ExporterKind;
  url: string;
  auth: ExporterAuth;
  username?: string | undefined;
  /** The bearer token or basic-auth password (sealed; never answered). */
  secret?: string | undefined;
  enabled: boolean;
}

const exporterContext = (workspaceId: string, id: string) => sealContext(workspaceId, `exporter:${id}`);

type ExporterRecord = Prisma.ResultsExporterGetPayload<object>;
const exporterRow = (r: ExporterRecord): ExporterRow => ({
  id: r.id,
  name: r.name,
  kind: r.kind as ExporterKind,
  url: r.url,
  auth: r.auth as ExporterAuth,
  username: r.username,
  hasSecret: r.secret !== null,
  enabled: r.enabled,
  createdBy: r.createdBy,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

type ExportRecord = Prisma.ResultsExportGetPayload<{ include: { exporter: { select: { name: true } } } }>;
const exportRow = (r: ExportRecord): ExportRow => ({
  id: r.id,
  exporterId: r.exporterId,
  exporterName: r.exporter.name,
  runId: r.runId,
  status: r.status as ExportStatus,
  attempts: r.attempts,
  attemptLog: readStoredJson(exportAttemptsSchema, r.attemptLog) ?? [],
  lastResponseCode: r.lastResponseCode,
  lastError: r.lastError,
  series: r.series,
  samples: r.samples,
  createdAt: r.createdAt.toISOString(),
  deliveredAt: r.deliveredAt?.toISOString() ?? null,
});

export function exportersScope(db: Db, workspaceId: string) {
  const find = async (id: string) => {
    const row = isUuid(id) ? await db.resultsExporter.findFirst({ where: { id, workspaceId } }) : null;
    if (!row) throw new NotFoundError("exporter", id);
    return row;
  };
  return {
    create: async (input: ExporterInput & { createdBy: string }, secretKey: string | undefined): Promise<ExporterRow> => {
      const id = randomUUID();
      const secret = input.auth !== "none" && input.secret ? sealSecret(input.secret, secretKey, exporterContext(workspaceId, id)) : null;
      const row = await db.resultsExporter.create({
        data: {
          id,
          workspaceId,
          name: input.name,
          kind: input.kind,
          url: input.url,
          auth: input.auth,
          username: input.auth === "basic" ? (input.username ?? null) : null,
          secret,
          enabled: input.enabled,
          createdBy: input.createdBy,
        },
      });
      return exporterRow(row);
    },
    list: async (): Promise<ExporterRow[]> =>
      (await db.resultsExporter.findMany({ where: { workspaceId }, orderBy: { createdAt: "asc" } })).map(exporterRow),
    get: async (id: string): Promise<ExporterRow> => exporterRow(await find(id)),
    /** Changes what is given; a secret given is sealed anew, none keeps the stored one (auth "none" forgets it). */
    update: async (id: string, patch: Partial<ExporterInput>, secretKey: string | undefined): Promise<ExporterRow> => {
      const before = await find(id);
      const auth = patch.auth ?? (before.auth as ExporterAuth);
      const secret =
        auth === "none"
          ? { secret: null }
          : patch.secret !== undefined
            ? { secret: sealSecret(patch.secret, secretKey, exporterContext(workspaceId, id)) }
            : {};
      const row = await db.resultsExporter.update({
        where: { id },
        data: {
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.kind !== undefined ? { kind: patch.kind } : {}),
          ...(patch.url !== undefined ? { url: patch.url } : {}),
          ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
          auth,
          username: auth === "basic" ? (patch.username ?? before.username) : null,
          ...secret,
        },
      });
      return exporterRow(row);
    },
    /** Deletes the exporter and its log (a job still queued for it then finds nothing and ends). */
    remove: async (id: string): Promise<ExporterRow> => {
      const row = await find(id);
      await db.resultsExporter.delete({ where: { id } });
      return exporterRow(row);
    },
    /** The export log, newest first; `exporter`: one exporter's (NotFoundError for one not of this workspace). */
    exports: async (opts: { exporter?: string | undefined; limit: number }): Promise<ExportRow[]> => {
      if (opts.exporter) await find(opts.exporter);
      const rows = await db.resultsExport.findMany({
        where: { workspaceId, ...(opts.exporter ? { exporterId: opts.exporter } : {}) },
        include: { exporter: { select: { name: true } } },
        orderBy: { createdAt: "desc" },
        take: opts.limit,
      });
      return rows.map(exportRow);
    },
  };
}
export type ExportersScope = ReturnType<typeof exportersScope>;

/**
 * One pending export per enabled exporter of the run's workspace, for a run that SUCCEEDED; answers the ids written
 * now (none for a run already sent to every exporter: the (exporter, run) pair is unique).
 */
export async function recordRunExports(db: Db, runId: string): Promise<string[]> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { workspaceId: true, status: true } });
  if (run?.status !== "SUCCEEDED") return [];
  const exporters = await db.resultsExporter.findMany({ where: { workspaceId: run.workspaceId, enabled: true }, select: { id: true } });
  const ids: string[] = [];
  for (const e of exporters) {
    const id = randomUUID();
    const made = await db.resultsExport.createMany({
      data: [{ id, workspaceId: run.workspaceId, exporterId: e.id, runId }],
      skipDuplicates: true,
    });
    if (made.count) ids.push(id);
  }
  return ids;
}

export interface OpenedExport {
  id: string;
  runId: string;
  status: ExportStatus;
  exporter: {
    id: string;
    name: string;
    kind: ExporterKind;
    url: string;
    auth: ExporterAuth;
    username: string | null;
    secret: string | null;
    enabled: boolean;
  };
}

/** What one attempt needs: the run and the exporter with its secret opened. Null when the export (or its exporter) is gone. */
export async function openExport(db: Db, exportId: string, secretKey: string | undefined): Promise<OpenedExport | null> {
  const row = await db.resultsExport.findUnique({ where: { id: exportId }, include: { exporter: true } });
  if (!row) return null;
  const e = row.exporter;
  return {
    id: row.id,
    runId: row.runId,
    status: row.status as ExportStatus,
    exporter: {
      id: e.id,
      name: e.name,
      kind: e.kind as ExporterKind,
      url: e.url,
      auth: e.auth as ExporterAuth,
      username: e.username,
      secret: e.secret === null ? null : openSecret(e.secret, secretKey, exporterContext(row.workspaceId, e.id)),
      enabled: e.enabled,
    },
  };
}

/** Appends an attempt; `outcome`: "delivered", "failed" (no attempt follows), or "pending" (a retry follows). */
export async function recordExportAttempt(
  db: Db,
  exportId: string,
  attempt: ExportAttempt,
  outcome: ExportStatus,
  sent?: { series: number; samples: number },
): Promise<void> {
  const row = await db.resultsExport.findUnique({ where: { id: exportId }, select: { attemptLog: true } });
  if (!row) return;
  const log = readStoredJson(exportAttemptsSchema, row.attemptLog) ?? [];
  await db.resultsExport.update({
    where: { id: exportId },
    data: {
      attempts: { increment: 1 },
      attemptLog: jsonInput(exportAttemptsSchema, [...log, attempt]),
      lastResponseCode: attempt.code,
      lastError: attempt.error,
      status: outcome,
      ...(sent ? sent : {}),
      ...(outcome === "delivered" ? { deliveredAt: new Date(attempt.at) } : {}),
    },
  });
}

/**
 * A run's per-second facts for its export: latency quantiles, requests and failures per second (every request name,
 * class and load generator of the second merged, as the run's page merges them), VUs, the platform's replicas and
 * CPU, and the run's cost. Null for a run that is gone.
 */
export async function runExportFacts(db: Db, runId: string): Promise<RunExportFacts | null> {
  const run = await db.run.findUnique({
    where: { id: runId },
    select: {
      studyId: true,
      commit: true,
      summary: true,
      loadFinishedAt: true,
      finishedAt: true,
      target: { select: { name: true } },
      workload: { select: { name: true } },
    },
  });
  if (!run) return null;
  const [cells, load, infra] = await Promise.all([
    db.resultSecond.findMany({
      where: { runId },
      select: { ts: true, requests: true, failures: true, sumMs: true, minMs: true, maxMs: true, buckets: true },
    }),
    db.loadSecond.findMany({ where: { runId }, select: { ts: true, vus: true } }),
    db.infraPoint.findMany({ where: { runId }, select: { ts: true, replicas: true, cpuPercent: true }, orderBy: { ts: "asc" } }),
  ]);
  const seconds = new Map<number, { h: ReturnType<typeof emptyHistogram>; failures: number }>();
  for (const c of cells) {
    const t = c.ts.getTime();
    const s = seconds.get(t) ?? { h: emptyHistogram(), failures: 0 };
    mergeInto(s.h, { count: c.requests, sum: c.sumMs, min: c.minMs, max: c.maxMs, buckets: decodeBuckets(c.buckets) });
    s.failures += c.failures;
    seconds.set(t, s);
  }
  const vus = new Map<number, number>();
  // Each load generator reports its own VUs: the run's are their sum.
  for (const l of load) vus.set(l.ts.getTime(), (vus.get(l.ts.getTime()) ?? 0) + l.vus);
  const cost = readStoredJson(runCostSchema, (run.summary as { cost?: unknown } | null)?.cost);
  const costAt = run.loadFinishedAt ?? run.finishedAt;
  return {
    labels: { run: runId, study: run.studyId, target: run.target?.name, workload: run.workload?.name, commit: run.commit },
    seconds: [...seconds].map(([t, s]) => ({
      t,
      p50: quantile(s.h, 0.5),
      p95: quantile(s.h, 0.95),
      p99: quantile(s.h, 0.99),
      requests: s.h.count,
      failures: s.failures,
    })),
    load: [...vus].map(([t, v]) => ({ t, vus: v })),
    infra: infra.map((p) => ({ t: p.ts.getTime(), replicas: p.replicas, cpuPercent: p.cpuPercent })),
    cost: cost && costAt ? { t: costAt.getTime(), total: cost.total, unit: cost.unit } : null,
  };
}
