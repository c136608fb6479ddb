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
  type K6OutputLine,
  loadTotals,
  MAX_SERIES_NAME_LENGTH,
  mergeLoadSeconds,
  summarize,
  thresholdsAsK6Summary,
  type K6EndLine,
  type K6HttpLine,
  type K6LoadLine,
  type K6MetricLine,
  type RunProvenance,
  type RunSummary,
  type ThresholdSources,
  thresholdSourcesSchema,
} from "@opsbench/core";
import { jsonInput } from "../json-column";
import type { Db } from "../client";
import { provenanceColumns } from "../runs/run-provenance";
import { runStore } from "../runs/run-store";
import { loadResultCells } from "../runs/result-cells";
import { loadMetricCells } from "../runs/run-view";
import { generatorTotals, segmentStore } from "../runs/run-segments";
import { limitsScope } from "../scope/limits-scope";

export const EXTERNAL_SOURCE = "external";
/** An ingest token works this long unless asked otherwise. */
export const DEFAULT_INGEST_TOKEN_HOURS = 24;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** A run waiting for k6 to feed it, and the token that lets it (shown once, never stored). */
export async function createExternalRun(
  db: Db,
  workspaceId: string,
  input: {
    name: string;
    workloadId?: string | null;
    workloadSpec?: unknown;
    validHours?: number;
    generators?: number;
    provenance?: RunProvenance | undefined;
  },
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
      ...provenanceColumns(input.provenance),
      ...(input.workloadSpec === undefined ? {} : { workloadSpec: input.workloadSpec as object }),
      ingestTokens: { create: { tokenHash: hashToken(token), expiresAt } },
    },
  });
  return { id: run.id, token, expiresAt };
}

/**
 * Ends an external run queued or under way at once: ABORTED, and its ingest tokens expire now, so whatever its
 * generators still send is refused. No worker runs it, so nothing else would ever stop it. False when the run is not
 * an open external run.
 */
export async function abortExternalRun(db: Db, workspaceId: string, runId: string, now = new Date()): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const done = await tx.run.updateMany({
      where: { id: runId, workspaceId, source: EXTERNAL_SOURCE, status: { in: ["QUEUED", "RUNNING"] } },
      data: { status: "ABORTED", finishedAt: now, error: "aborted by request", abortRequestedAt: now },
    });
    if (done.count === 0) return false;
    await tx.runIngestToken.updateMany({ where: { runId, expiresAt: { gt: now } }, data: { expiresAt: now } });
    return true;
  });
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
 * How far a generator's clock may be off the server's. A sample is refused when it is dated outside the run's window,
 * widened by this: from the run's making to now (the output sends each second as it settles; the token's expiry
 * ends the run's window anyway).
 */
export const INGEST_CLOCK_MARGIN_MS = 10 * 60_000;

/** Why a line cannot be one of this run's measurements (a name over the stored length, a time outside the window), or null. */
function lineProblem(l: K6OutputLine, window: { fromMs: number; toMs: number }): string | null {
  if ((l.t === "http" || l.t === "metric") && l.name.length > MAX_SERIES_NAME_LENGTH)
    return `name is ${l.name.length} characters, at most ${MAX_SERIES_NAME_LENGTH} (opsbench-engine folds longer ones into "other")`;
  const times: Array<[string, number | undefined]> =
    l.t === "http" || l.t === "load" || l.t === "metric"
      ? [["s", l.s * 1000]]
      : l.t === "end"
        ? [
            ["startMs", l.startMs],
            ["firstMs", l.firstMs],
            ["lastMs", l.lastMs],
          ]
        : [];
  const iso = (ms: number) => (Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : "not a date");
  for (const [field, ms] of times) {
    if (ms === undefined || (ms >= window.fromMs && ms <= window.toMs)) continue;
    const minutes = INGEST_CLOCK_MARGIN_MS / 60_000;
    return (
      `${field} ${field === "s" ? ms / 1000 : ms} (${iso(ms)}) is outside the run's window, ${iso(window.fromMs)} to ` +
      `${iso(window.toMs)} (from ${minutes} minutes before the run was made to ${minutes} minutes from now)`
    );
  }
  return null;
}

/**
 * Writes one batch of the output's lines to the run the token belongs to. Nothing is written unless the
 * token is valid, unexpired and for this run, the run is open, the segment is one of the run's generators, and every
 * line parses, with its names and times within bounds (lineProblem).
 */
export async function ingestRunLines(db: Db, runId: string, token: string | null, segmentHeader: string | null, body: string) {
  const now = new Date();
  const found = token ? await db.runIngestToken.findUnique({ where: { tokenHash: hashToken(token) } }) : null;
  if (!found || found.runId !== runId || found.expiresAt <= now)
    throw new IngestRefused(401, "invalid or expired ingest token for this run");
  const run = await db.run.findUniqueOrThrow({
    where: { id: runId },
    select: { status: true, source: true, generators: true, createdAt: true, workspaceId: true },
  });
  if (run.source !== EXTERNAL_SOURCE || !["QUEUED", "RUNNING"].includes(run.status))
    throw new IngestRefused(409, `the run is ${run.status.toLowerCase()}; it takes no more results`);
  const { index, count } = parseSegmentHeader(segmentHeader);
  // Only the generators the run was made for: a made-up segment would be a series no generator measured.
  if (count !== run.generators || index >= run.generators)
    throw new IngestRefused(
      422,
      `X-Opsbench-Segment "${segmentHeader ?? "0:1"}" is segment ${index} of ${count}; the run was made for ${run.generators} generator${run.generators === 1 ? "" : "s"}`,
    );
  const window = { fromMs: run.createdAt.getTime() - INGEST_CLOCK_MARGIN_MS, toMs: now.getTime() + INGEST_CLOCK_MARGIN_MS };

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
    const problem = lineProblem(l, window);
    if (problem) throw new IngestRefused(422, `line ${i + 1}: ${problem}`);
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

  await refuseSeriesOverLimit(db, runId, run.workspaceId, http);

  const segments = segmentStore(db, runId);
  if (run.status === "QUEUED") {
    await db.run.updateMany({
      where: { id: runId, status: "QUEUED" },
      data: { status: "RUNNING", startedAt: now, loadStartedAt: now },
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
 * The workspace's maxHttpSeries holds for the whole run, all its generators together: the worker folds names beyond
 * it into "other" for runs it makes (HttpSeriesCap); the engine sends what the script names, so a batch that would
 * take the run past it is refused here instead.
 */
async function refuseSeriesOverLimit(db: Db, runId: string, workspaceId: string, http: K6HttpLine[]) {
  const names = [...new Set(http.map((l) => l.name))];
  if (!names.length) return;
  const { maxHttpSeries } = await limitsScope(db, workspaceId).get();
  const [stored, known] = await Promise.all([
    db.resultSecond.findMany({ where: { runId }, distinct: ["name"], select: { name: true }, take: maxHttpSeries + 1 }),
    db.resultSecond.findMany({ where: { runId, name: { in: names } }, distinct: ["name"], select: { name: true } }),
  ]);
  const added = names.length - known.length;
  if (stored.length + added > maxHttpSeries)
    throw new IngestRefused(
      422,
      `the batch names ${added} more request(s): the run would have ${stored.length + added} request names, over the workspace's limit maxHttpSeries (${maxHttpSeries})`,
    );
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
  // Only a run still under way: one aborted meanwhile stays ABORTED.
  await db.run.updateMany({
    where: { id: runId, status: "RUNNING" },
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
