// Step 6, analyze: the run's summary from the stored per-second cells (latency,
// throughput, load, k6's thresholds, app checks), its cost when the target names a
// cost model, and the validity flags a reader should see next to the numbers.
import {
  afterWarmup,
  analysisFlags,
  analysisStartMs,
  closedLoopFlag,
  coordinatedOmission,
  droppedIterationsFlag,
  measuredSeconds,
  mergeFlags,
  noSuccessfulRequestFlag,
  k6LoadWindow,
  loadTotals,
  mergeLoadSeconds,
  kindCost,
  priceRun,
  readInfraPointDetail,
  scriptLoopbackHosts,
  summarize,
  thresholdOutcomes,
  workerClockWindow,
  type RunSummary,
  type TargetDefinition,
  warmupFlags,
  warmupSummaryFields,
  type WorkloadSpec,
} from "@opsbench/core";
import {
  addRunFlags,
  generatorTotals,
  loadMeasuredCells,
  plannedRepetitions,
  retryWhileDown,
  runInfraPoints,
  runStore,
  storeRunRollup,
  type Db,
} from "@opsbench/db";
import type { AppCheck } from "@opsbench/providers";
import { K6_THRESHOLDS_FAILED } from "@opsbench/jobs";
import type { LoadResult } from "./load";
import { recordStep } from "./record-step";
import { outageWait, type RunContext } from "./run-context";

/** What the run found that its summary is made from, beside the stored seconds: the target, k6's result, the app checks. */
export interface Analyzed {
  target: TargetDefinition;
  k6: LoadResult;
  appChecks: AppCheck[];
  workload: WorkloadSpec;
}

export async function analyze(ctx: RunContext, analyzed: Analyzed): Promise<void> {
  const { deps } = ctx;
  // Reads and writes that are safe to repeat: a database blip while analysing waits for the database (bounded).
  await recordStep(ctx, "ANALYZE", () => retryWhileDown(() => analyzeRun(ctx, analyzed), outageWait(deps, ctx.log)));
}

async function analyzeRun({ store, runId, deps }: RunContext, { target, k6, appChecks, workload }: Analyzed) {
  // The run's analysis window: the seconds after its warm-up (the study's, else detected by MSER-5), what the
  // summary, the rollup (verdicts, tables), the cost and the zoom are taken from. Decided here, kept in the summary.
  const { cells, all, warmupSeconds, loadStart, warmup } = await loadMeasuredCells(deps.db, runId, { decide: {} });
  const fresh = await store.get();
  // req/s over the load on k6's clock (k6 v1.8.1's summary export has no testRunDurationMs), never
  // the worker's wall clock around the whole k6 process unless k6 reported no time at all.
  const window =
    k6LoadWindow({ firstSampleMs: k6.k6Clock?.startMs, lastSampleMs: k6.k6Clock?.lastMs, rowSeconds: all.map((c) => c.ts) }) ??
    workerClockWindow(fresh.loadStartedAt!, fresh.loadFinishedAt!);
  const seconds = loadStart ? measuredSeconds(window, loadStart, warmupSeconds) : window.seconds;
  // Several generators write rows of the same second: their VUs and counts add up.
  const loadRows = mergeLoadSeconds(await runStore(deps.db, runId).loadSeconds());
  const load = loadStart ? afterWarmup(loadRows, loadStart, warmupSeconds) : loadRows;
  const generators = fresh.generators > 1 ? await generatorTotals(deps.db, runId) : undefined;
  const totals = loadTotals(load);
  const coordinated = workload
    ? coordinatedOmission(workload, cells, totals.iterations > 0 ? summarize(cells, 1).requests / totals.iterations : null)
    : null;
  const summary = {
    ...summarize(cells, seconds),
    durationSource: window.source,
    ...(warmup ? warmupSummaryFields(warmup) : {}),
    ...(coordinated ? { coordinatedOmission: coordinated } : {}),
    ...(workload?.kind === "constant-arrival-rate" && workload.rateSource ? { rateSource: workload.rateSource } : {}),
    load: { ...totals, generatorCpuPercent: k6.cpuPercentOfMachine, ...(generators ? { generators } : {}) },
    thresholds: thresholdOutcomes(k6.summary),
    appChecks,
  };
  // Priced over the analysis window: its seconds, its requests, and the replicas and metered time inside it.
  const warmupEnd = loadStart && warmupSeconds > 0 ? new Date(Math.max(window.startMs, analysisStartMs(loadStart, warmupSeconds))) : null;
  const cost = await costOfRun(deps.db, runId, target, summary, warmupEnd ?? new Date(window.startMs), warmupEnd !== null);
  if (cost && !cost.ok) await store.event("warn", `not priced: ${cost.error}`);
  await store.saveSummary(cost?.ok ? { ...summary, cost: cost.cost } : summary, k6.summary);
  // No successful request: said with its likely cause when the script names a loopback address instead of the target's.
  const noSuccess = noSuccessfulRequestFlag(summary, workload?.kind === "script" ? scriptLoopbackHosts(workload.source) : []);
  await addRunFlags(deps.db, runId, [
    ...mergeFlags(analysisFlags(summary, await plannedRepetitions(deps.db, runId)), noSuccess ? [noSuccess] : []),
    ...(coordinated && workload ? [closedLoopFlag(workload.kind, coordinated.expectedIntervalMs)] : []),
    ...(warmup ? warmupFlags(warmup) : []),
  ]);
  if (noSuccess) await store.event("warn", noSuccess.message);
  // What the run contributes to any comparison (rollups, per-second values), computed once here.
  await storeRunRollup(deps.db, runId);
  if (summary.load.droppedIterations > 0) await store.event("warn", droppedIterationsFlag(summary.load).message);
  if (k6.exitCode === K6_THRESHOLDS_FAILED) await store.event("warn", "k6 thresholds failed");
  return { result: undefined, detail: { requests: summary.requests } };
}

/**
 * What the run would have cost on the platform the target stands for, when the target names a cost model. What the
 * price is taken from besides requests and the replica timeline is the kind's (core kinds/: `cost`).
 */
async function costOfRun(
  db: Db,
  runId: string,
  { kind, spec }: TargetDefinition,
  summary: RunSummary,
  /** The analysis window's start (the load start, after the warm-up when there is one): the replica timeline's second 0. */
  loadStartedAt: Date | null,
  cutWarmup = false,
) {
  const model = "costModel" in spec ? spec.costModel : undefined;
  if (model === undefined || !loadStartedAt) return null;
  const cost = kindCost(kind);
  const infra = await runInfraPoints(db, runId);
  const details = infra.map((p) => readInfraPointDetail(p.detail));
  // The provider's own meter: running billed time each second, so the window's is the last minus the first; after a
  // warm-up, minus the last reading at or before its end (the warm-up's billed time is not the measured requests').
  const readings =
    cost.billedTime === "meter"
      ? infra.flatMap((p, i) => (typeof details[i]!.totals?.billedMs === "number" ? [{ ts: p.ts, ms: details[i]!.totals!.billedMs! }] : []))
      : [];
  const before = cutWarmup ? readings.filter((r) => r.ts.getTime() <= loadStartedAt.getTime()).length : 0;
  const metered = readings.slice(Math.max(0, before - 1)).map((r) => r.ms);
  // The platform's periods (docs/cloud-targets.md): running totals from the window's start, so the last one is the window's.
  const periodPoints = cost.billedTime === "platform" ? details.filter((d) => d.resolutionSeconds != null) : [];
  const lastTotals = periodPoints.at(-1)?.totals;
  return priceRun(model, {
    durationSeconds: summary.durationSeconds,
    durationSource: summary.durationSource,
    requests: summary.requests,
    failures: summary.failures,
    meanLatencySeconds: summary.latencyMs.avg / 1000,
    replicas: infra.map((p) => ({ offsetSeconds: (p.ts.getTime() - loadStartedAt.getTime()) / 1000, replicas: p.replicas })),
    billedSeconds: metered.length >= 2 ? (metered.at(-1)! - metered[0]!) / 1000 : null,
    platform:
      lastTotals?.billedMs != null
        ? { billedSeconds: lastTotals.billedMs / 1000, source: `${periodPoints.at(-1)?.kind ?? "the platform"}'s metrics` }
        : null,
    // Kubernetes as billed (nodes for the pods), and an ALB's capacity units (docs/cost.md).
    podCpu: cost.podCpu?.(spec) ?? null,
    heldNodes: cost.heldNodes?.(spec) ?? null,
    lcuHours: typeof lastTotals?.lcuHours === "number" ? lastTotals.lcuHours : null,
    traffic: summary.load ? { bytes: summary.load.bytesSent + summary.load.bytesReceived, peakConnections: summary.load.maxVUs } : null,
  });
}
