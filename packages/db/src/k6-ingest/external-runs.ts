// Runs fed from elsewhere (source "external"): opsbench-engine started by hand, in CI or by a Kubernetes Job, with
// its opsbench output pointed at POST /api/v1/runs/<id>/ingest (or a stock k6 piped into `opsbench ingest`). A
// run-scoped token (only its SHA-256 is stored; it expires) lets it write the run's per-second rows and nothing else. Each execution
// segment (the X-Opsbench-Segment header, "0:1" for a k6 on its own) is one generator: when all of
// them have sent their "end" line the run is summarised and final.
import { createHash, randomBytes } from "node:crypto";
import {
  evaluateMergedThresholds,
  HISTOGRAM_ALPHA,
  K6_THRESHOLDS_FAILED,
  k6LoadWindow,
  k6OutputLine,
  loadTotals,
  mergeLoadSeconds,
  summarize,
  thresholdsAsK6Summary,
  type K6EndLine,
  type K6HttpLine,
  type K6LoadLine,
  type K6MetricLine,
  type RunSummary,
  type ThresholdSources,
  thresholdSourcesSchema,
} from "@opsbench/core";
import { jsonInput } from "../json-column";
import type { Db } from "../client";
import { runStore } from "../runs/run-store";
import { loadResultCells } from "../runs/result-cells";
import { loadMetricCells } from "../runs/run-view";
import { generatorTotals, segmentStore } from "../runs/run-segments";

export const EXTERNAL_SOURCE = "external";
/** An ingest token works this long unless asked otherwise. */
export const DEFAULT_INGEST_TOKEN_HOURS = 24;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** A run waiting for k6 to feed it, and the token that lets it (shown once, never stored). */
export async function createExternalRun(
  db: Db,
  workspaceId: string,
  input: { name: string; workloadId?: string | null; workloadSpec?: unknown; validHours?: number; generators?: number },
): Promise<{ id: string; token: string; expiresAt: Date }> {
  const token = `obi_${randomBytes(32).toString("base64url")}`;
  const expiresAt = new Date(Date.now() + (input.validHours ?? DEFAULT_INGEST_TOKEN_HOURS) * 3600_000);
  const run = await db.run.create({
    data: {
      workspaceId,
      source: EXTERNAL_SOURCE,
      name: input.name,
      status: "QUEUED",
      generators: input.generators ?? 1,
      workloadId: input.workloadId ?? null,
      ...(input.workloadSpec === undefined ? {} : { workloadSpec: input.workloadSpec as object }),
      ingestTokens: { create: { tokenHash: hashToken(token), expiresAt } },
    },
  });
  return { id: run.id, token, expiresAt };
}

/** Why an ingest request is refused: 401 (token), 409 (run not open), 422 (the lines). */
export class IngestRefused extends Error {
  constructor(
    readonly status: 401 | 409 | 422,
    message: string,
  ) {
    super(message);
  }
}

/** "a:b" or "a/b:c/d" (k6's --execution-segment) -> its index and the number of equal parts. */
export function parseSegmentHeader(header: string | null): { index: number; count: number } {
  if (!header || header === "0:1") return { index: 0, count: 1 };
  const frac = (s: string) => {
    const [n, d = "1"] = s.split("/");
    const v = Number(n) / Number(d);
    if (!Number.isFinite(v) || v < 0 || v > 1) throw new IngestRefused(422, `bad X-Opsbench-Segment "${header}" (expected e.g. 1/2:1)`);
    return v;
  };
  const [from, to] = header.split(":").map(frac);
  if (from === undefined || to === undefined || to <= from)
    throw new IngestRefused(422, `bad X-Opsbench-Segment "${header}" (expected e.g. 1/2:1)`);
  const count = Math.round(1 / (to - from));
  return { index: Math.round(from * count), count };
}

/**
 * Writes one batch of the output's lines to the run the token belongs to. Nothing is written unless the
 * token is valid, unexpired and for this run, the run is open, and every line parses.
 */
export async function ingestRunLines(db: Db, runId: string, token: string | null, segmentHeader: string | null, body: string) {
  const now = new Date();
  const found = token ? await db.runIngestToken.findUnique({ where: { tokenHash: hashToken(token) } }) : null;
  if (!found || found.runId !== runId || found.expiresAt <= now)
    throw new IngestRefused(401, "invalid or expired ingest token for this run");
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true, source: true } });
  if (run.source !== EXTERNAL_SOURCE || !["QUEUED", "RUNNING"].includes(run.status))
    throw new IngestRefused(409, `the run is ${run.status.toLowerCase()}; it takes no more results`);
  const { index, count } = parseSegmentHeader(segmentHeader);

  const http: K6HttpLine[] = [];
  const load: K6LoadLine[] = [];
  const metrics: K6MetricLine[] = [];
  let end: K6EndLine | null = null;
  let thresholds: ReturnType<typeof jsonInput> | undefined;
  const lines = body.split("\n").filter((l) => l.trim() !== "");
  for (const [i, raw] of lines.entries()) {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new IngestRefused(422, `line ${i + 1} is not JSON`);
    }
    const parsed = k6OutputLine.safeParse(json);
    if (!parsed.success) throw new IngestRefused(422, `line ${i + 1} is not an opsbench output line: ${parsed.error.issues[0]?.message}`);
    const l = parsed.data;
    if (l.t === "meta" && l.alpha !== HISTOGRAM_ALPHA)
      throw new IngestRefused(
        422,
        `the output writes histograms with alpha ${l.alpha}; this server reads ${HISTOGRAM_ALPHA} (use the opsbench-engine of this version)`,
      );
    if (l.t === "http") http.push(l);
    else if (l.t === "load") load.push(l);
    else if (l.t === "metric") metrics.push(l);
    else if (l.t === "end") end = l;
    else if (l.t === "plan" && l.thresholds) thresholds = jsonInput(thresholdSourcesSchema, l.thresholds);
  }

  const segments = segmentStore(db, runId);
  if (run.status === "QUEUED") {
    await db.run.updateMany({
      where: { id: runId, status: "QUEUED" },
      data: { status: "RUNNING", startedAt: now, loadStartedAt: now, generators: count },
    });
  }
  await db.runSegment.upsert({
    where: { runId_index: { runId, index } },
    create: { runId, index, count, status: "RUNNING", startedAt: now, worker: "external", thresholds },
    update: thresholds ? { thresholds } : {},
  });
  const store = runStore(db, runId, { segment: index, clockShiftSeconds: 0 });
  await store.appendBatch({ http, load, metrics, infra: [] });
  let final = false;
  if (end) {
    const e: K6EndLine = end;
    await db.runSegment.update({
      where: { runId_index: { runId, index } },
      data: { status: "FINISHED", finishedAt: now, k6StartMs: e.startMs ?? e.firstMs ?? null, k6LastMs: e.lastMs ?? null },
    });
    const rows = await segments.list();
    if (rows.filter((r) => r.status === "FINISHED").length >= count) {
      await finishExternalRun(db, runId);
      final = true;
    }
  }
  return { rows: http.length + load.length + metrics.length, segment: index, final };
}

/**
 * Summarises an external run from its stored rows once every segment has ended, and makes it final. The script's
 * thresholds (each k6's "plan" line) are judged on the merged result: k6's exit code 99 when one fails.
 */
async function finishExternalRun(db: Db, runId: string) {
  const rows = await segmentStore(db, runId).list();
  const cells = await loadResultCells(db, runId);
  const starts = rows.flatMap((r) => (r.k6StartMs === null ? [] : [r.k6StartMs]));
  const lasts = rows.flatMap((r) => (r.k6LastMs === null ? [] : [r.k6LastMs]));
  const window = k6LoadWindow({
    firstSampleMs: starts.length ? Math.min(...starts) : null,
    lastSampleMs: lasts.length ? Math.max(...lasts) : null,
    rowSeconds: cells.map((c) => c.ts),
  });
  const seconds = window?.seconds ?? 0;
  const loadRows = mergeLoadSeconds(await db.loadSecond.findMany({ where: { runId } }));
  const load = loadTotals(loadRows);
  const sources: ThresholdSources = Object.assign({}, ...rows.map((r) => r.thresholds ?? {}));
  const thresholds = evaluateMergedThresholds(sources, {
    cells,
    metrics: await loadMetricCells(db, runId),
    load: loadRows,
    durationSeconds: seconds,
  });
  const thresholdsOk = thresholds.every((t) => t.ok);
  const generators = rows.length > 1 ? await generatorTotals(db, runId) : undefined;
  const summary: RunSummary = {
    ...summarize(cells, seconds),
    ...(window ? { durationSource: window.source } : {}),
    load: { ...load, generatorCpuPercent: null, ...(generators ? { generators } : {}) },
    thresholds: thresholds.map(({ metric, expression, ok }) => ({ metric, expression, ok })),
    appChecks: [],
  };
  const store = runStore(db, runId);
  await store.saveSummary(summary, thresholds.length ? thresholdsAsK6Summary(thresholds) : null);
  for (const t of thresholds.filter((t) => t.unevaluated))
    await store.event("warn", `threshold ${t.metric}: ${t.expression} not evaluated (counts as failed): ${t.unevaluated}`);
  if (!thresholdsOk) await store.event("warn", "k6 thresholds failed on the merged result of all generators");
  await db.run.update({
    where: { id: runId },
    data: {
      status: "SUCCEEDED",
      finishedAt: new Date(),
      k6ExitCode: thresholdsOk ? 0 : K6_THRESHOLDS_FAILED,
      thresholdsOk,
      loadStartedAt: window ? new Date(window.startMs) : undefined,
      loadFinishedAt: window ? new Date(window.endMs) : new Date(),
    },
  });
}
