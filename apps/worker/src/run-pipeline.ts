// run.execute(runId): claim, provision, baseline, load, collect, analyze, and
// teardown (always). Each finished step is recorded on the run, so a delivery
// of the same job later never deploys twice and can clean up what was made.
import path from "node:path";
import { rmSync } from "node:fs";
import { ZodError } from "zod";
import {
  analysisFlags,
  baselineNotReachedFlag,
  compileK6Script,
  k6LoadWindow,
  loadTotals,
  priceRun,
  resolveRate,
  summarize,
  type RunSummary,
  thresholdOutcomes,
  workloadSpec,
  type StepNameValue,
  type WorkloadSpec,
  workerClockWindow,
} from "@opsbench/core";
import { addRunFlags, loadResultCells, plannedRepetitions, runStore, type Db, type RunStore } from "@opsbench/db";
import { publishRunUpdate, type Publisher } from "@opsbench/jobs";
import { providerFor, ProviderError, type Deployment, type ProviderContext } from "@opsbench/providers";
import { K6_THRESHOLDS_FAILED, runK6 } from "./k6-process";
import { ResultWriter } from "./result-writer";
import { checkBaseline } from "./baseline-check";
import type { Logger } from "./logger";

export interface PipelineDeps {
  db: Db;
  redis: Publisher;
  log: Logger;
  k6: { binary: string; version: string };
  benchappsDir: string;
  workDir: string;
}

/** An expected failure: its message is shown to the user as the run's error. */
export class RunFailure extends Error {}

const IN_FLIGHT = ["PROVISIONING", "RUNNING", "ANALYZING"];

/** How long the baseline check waits by default (a study sets its own). */
export const DEFAULT_BASELINE_WAIT_MS = 120_000;

export interface RunOptions {
  baselineWaitMs?: number;
}

export async function executeRun(runId: string, deps: PipelineDeps, signal: AbortSignal, options: RunOptions = {}): Promise<void> {
  const store = runStore(deps.db, runId);
  const log = deps.log.child({ runId });
  const publish = (kind: "status" | "step" | "results" | "event", status?: string) =>
    publishRunUpdate(deps.redis, { runId, kind, ...(status ? { status } : {}) }).catch((err) => log.warn({ err }, "publish failed"));

  if (!(await store.claim())) {
    const run = await store.get();
    if (IN_FLIGHT.includes(run.status)) {
      // Delivered again after a worker died mid-run: load cannot resume, so clean up and say so.
      log.warn({ status: run.status }, "run was interrupted; tearing down what it made");
      await teardown(run.targetSpec as unknown as TargetSnapshot, store, deps, runId, signal, log).catch(() => {});
      await store.setStatus("FAILED", { error: "interrupted: the worker stopped while this run was in progress", finishedAt: new Date() });
      await publish("status", "FAILED");
    } else {
      log.info({ status: run.status }, "run already claimed or finished; skipping");
    }
    return;
  }
  await store.update({ k6Version: deps.k6.version });
  await publish("status", "PROVISIONING");
  const run = await store.get();
  const target = run.targetSpec as unknown as TargetSnapshot | null;
  if (!target) {
    // Imported runs have no target; they are never queued, but a stray job must not crash.
    await store.setStatus("FAILED", { error: "this run has no target to deploy", finishedAt: new Date() });
    await publish("status", "FAILED");
    return;
  }
  let failure: string | null = null;

  try {
    const provider = providerFor(target.kind);
    const ctx = providerContext(runId, store, deps, signal, log);
    let workload!: WorkloadSpec;
    let spec: unknown;

    const dep = await step(store, "PROVISION", publish, async () => {
      // Validated at the API, and again here: the row may come from anywhere.
      spec = parseOrFail(() => provider.spec.parse(target.spec), "target spec");
      workload = await resolveWorkload(
        parseOrFail(() => workloadSpec.parse(run.workloadSpec), "workload spec"),
        deps.db,
      );
      const d = await provider.deploy(spec, ctx);
      return { result: d, detail: d };
    });

    await step(store, "BASELINE", publish, async () => {
      const waitMs = options.baselineWaitMs ?? DEFAULT_BASELINE_WAIT_MS;
      const baseline = await checkBaseline((s) => provider.reset(dep, { ...ctx, signal: s }), { waitMs, signal });
      if (!baseline.reached) {
        // Run anyway: the numbers are kept, flagged, rather than lost.
        await addRunFlags(deps.db, runId, [baselineNotReachedFlag(Math.round(baseline.waitedMs / 1000), baseline.reason)]);
        await store.event("warn", `baseline not reached: ${baseline.reason}; the run goes ahead, flagged`);
      }
      return { result: undefined, detail: { replicasReady: baseline.reached, waitedMs: baseline.waitedMs } };
    });

    await store.setStatus("RUNNING");
    await publish("status", "RUNNING");
    const k6 = await step(store, "LOAD", publish, async () => {
      await store.clearResults();
      const observing = new AbortController();
      const observer = observeInto(provider.observe(dep, { signal: observing.signal }, ctx), store, log);
      const writer = new ResultWriter(store, () => publish("results"), log);
      await store.update({ loadStartedAt: new Date() });
      try {
        const result = await runK6({
          binary: deps.k6.binary,
          workDir: path.join(deps.workDir, runId),
          script: compileK6Script(workload),
          env: { OPSBENCH_BASE_URL: dep.endpoint },
          signal,
          onLine: (line) => writer.add(line),
        });
        await store.update({
          loadFinishedAt: new Date(),
          k6ExitCode: result.exitCode,
          thresholdsOk: result.exitCode !== K6_THRESHOLDS_FAILED,
        });
        await writer.close();
        if (result.malformedLines)
          await store.event("warn", `${result.malformedLines} malformed line(s) from the k6 output were not counted`);
        if (signal.aborted) throw new RunFailure("aborted during load");
        if (result.exitCode !== 0 && result.exitCode !== K6_THRESHOLDS_FAILED) {
          throw new RunFailure(`k6 exited with code ${result.exitCode}: ${result.outputTail || "no output"}`);
        }
        return { result: { ...result, k6Clock: writer.k6Clock }, detail: { exitCode: result.exitCode, rows: writer.rows } };
      } finally {
        observing.abort();
        await observer;
        await writer.close();
      }
    });

    // COLLECT: app-level checks the target declares (e.g. the shop's consistency check).
    // Local targets have no cloud metrics to collect.
    const appChecks = provider.appChecks ? await provider.appChecks(spec, dep, ctx) : [];
    await step(
      store,
      "COLLECT",
      publish,
      async () => ({
        result: undefined,
        detail: appChecks.length ? { appChecks } : { note: "no cloud metrics or app checks for this target" },
      }),
      appChecks.length ? "SUCCEEDED" : "SKIPPED",
    );
    for (const c of appChecks)
      await store.event(c.ok ? "info" : "warn", `app check ${c.name}: ${c.ok ? "passed" : "FAILED"}: ${c.message}`);

    await store.setStatus("ANALYZING");
    await publish("status", "ANALYZING");
    await step(store, "ANALYZE", publish, async () => {
      const cells = await loadResultCells(deps.db, runId);
      const fresh = await store.get();
      // req/s over the load on k6's clock (k6 v1.8.1's summary export has no testRunDurationMs).
      const window =
        k6LoadWindow({ firstSampleMs: k6.k6Clock?.startMs, lastSampleMs: k6.k6Clock?.lastMs, rowSeconds: cells.map((c) => c.ts) }) ??
        workerClockWindow(fresh.loadStartedAt!, fresh.loadFinishedAt!);
      const windowSeconds = window.seconds;
      const load = await deps.db.loadSecond.findMany({ where: { runId } });
      const summary = {
        ...summarize(cells, windowSeconds),
        durationSource: window.source,
        load: { ...loadTotals(load), generatorCpuPercent: k6.cpuPercentOfMachine },
        thresholds: thresholdOutcomes(k6.summary),
        appChecks,
      };
      const cost = await costOfRun(deps.db, runId, spec, summary, new Date(window.startMs));
      if (cost && !cost.ok) await store.event("warn", `not priced: ${cost.error}`);
      await store.saveSummary(cost?.ok ? { ...summary, cost: cost.cost } : summary, k6.summary);
      await addRunFlags(deps.db, runId, analysisFlags(summary, await plannedRepetitions(deps.db, runId)));
      if (summary.load.droppedIterations > 0)
        await store.event(
          "warn",
          `${summary.load.droppedIterations} iterations dropped: the load generator could not keep the planned rate`,
        );
      if (k6.exitCode === K6_THRESHOLDS_FAILED) await store.event("warn", "k6 thresholds failed");
      return { result: undefined, detail: { requests: summary.requests } };
    });
  } catch (err) {
    failure = describe(err);
    if (!(err instanceof RunFailure || err instanceof ProviderError || err instanceof ZodError))
      log.error({ err }, "run failed unexpectedly");
    else log.warn({ error: failure }, "run failed");
  } finally {
    const teardownError = await teardown(target, store, deps, runId, signal, log).then(
      () => null,
      (err) => describe(err),
    );
    if (teardownError) failure = failure ? `${failure}; teardown: ${teardownError}` : `teardown: ${teardownError}`;
    rmSync(path.join(deps.workDir, runId), { recursive: true, force: true });
    const status = signal.aborted ? "ABORTED" : failure ? "FAILED" : "SUCCEEDED";
    await store.setStatus(status, { finishedAt: new Date(), error: failure });
    await publish("status", status);
    log.info({ status, error: failure }, "run finished");
  }
}

interface TargetSnapshot {
  kind: string;
  spec: unknown;
}

/** What the run would have cost on the platform the target stands for, when the target names a cost model. */
async function costOfRun(db: Db, runId: string, spec: unknown, summary: RunSummary, loadStartedAt: Date | null) {
  const model = (spec as { costModel?: unknown } | null)?.costModel;
  if (model === undefined || !loadStartedAt) return null;
  const infra = await db.infraPoint.findMany({ where: { runId }, orderBy: { ts: "asc" } });
  const billedMs = infra
    .map((p) => (p.detail as { totals?: { billedMs?: number } } | null)?.totals?.billedMs)
    .filter((v): v is number => typeof v === "number");
  return priceRun(model, {
    durationSeconds: summary.durationSeconds,
    durationSource: summary.durationSource,
    requests: summary.requests,
    failures: summary.failures,
    meanLatencySeconds: summary.latencyMs.avg / 1000,
    replicas: infra.map((p) => ({ offsetSeconds: (p.ts.getTime() - loadStartedAt.getTime()) / 1000, replicas: p.replicas })),
    // The platform's own meter (local-function) over the load window, when there is one.
    billedSeconds: billedMs.length >= 2 ? (billedMs.at(-1)! - billedMs[0]!) / 1000 : null,
  });
}

/** "Stable at X% of a measured maximum": the rate comes from the referenced run's max throughput. */
async function resolveWorkload(spec: WorkloadSpec, db: Db): Promise<WorkloadSpec> {
  if (spec.kind !== "constant-arrival-rate" || typeof spec.rate === "number") return spec;
  const ref = await db.run.findUnique({ where: { id: spec.rate.runId }, select: { summary: true, status: true } });
  const max = (ref?.summary as { maxThroughput?: { rps: number } | null } | null)?.maxThroughput?.rps;
  if (ref?.status !== "SUCCEEDED" || !max) {
    throw new RunFailure(
      `the workload's rate is ${spec.rate.percentOfRunMax}% of run ${spec.rate.runId}'s maximum throughput, but that run ${ref ? `has no measured maximum (status ${ref.status})` : "does not exist"}`,
    );
  }
  return resolveRate(spec, max);
}

function parseOrFail<T>(fn: () => T, what: string): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ZodError) {
      const issues = err.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
      throw new RunFailure(`invalid ${what}: ${issues}`);
    }
    throw err;
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function step<T>(
  store: RunStore,
  name: StepNameValue,
  publish: (kind: "step") => Promise<unknown>,
  fn: () => Promise<{ result: T; detail: unknown }>,
  okStatus: "SUCCEEDED" | "SKIPPED" = "SUCCEEDED",
): Promise<T> {
  await store.startStep(name);
  await publish("step");
  try {
    const { result, detail } = await fn();
    await store.finishStep(name, { status: okStatus, detail });
    return result;
  } catch (err) {
    await store.finishStep(name, { status: "FAILED", error: describe(err) });
    throw err;
  } finally {
    await publish("step");
  }
}

function providerContext(runId: string, store: RunStore, deps: PipelineDeps, signal: AbortSignal, log: Logger): ProviderContext {
  return {
    runId,
    signal,
    benchappsDir: deps.benchappsDir,
    log: (msg, data) => log.info({ ...data }, msg),
    saveState: (state) => store.stepDetail("PROVISION", { state }).then(() => undefined),
    event: (level, message, data) => store.event(level, message, data).then(() => undefined),
  };
}

/** Tears down whatever PROVISION recorded (its full deployment, or the partial state saved on the way). */
async function teardown(target: TargetSnapshot, store: RunStore, deps: PipelineDeps, runId: string, signal: AbortSignal, log: Logger) {
  const provision = await store.step("PROVISION");
  const detail = provision?.detail as { state?: unknown } | null | undefined;
  if (!detail?.state) return;
  await store.startStep("TEARDOWN");
  try {
    const provider = providerFor(target.kind);
    await provider.teardown({ state: detail.state } as Deployment, providerContext(runId, store, deps, signal, log));
    await store.finishStep("TEARDOWN", { status: "SUCCEEDED" });
  } catch (err) {
    await store.finishStep("TEARDOWN", { status: "FAILED", error: describe(err) });
    throw err;
  }
}

async function observeInto(
  points: AsyncIterable<{ ts: Date; replicas: number; cpuPercent: number | null; detail?: unknown }>,
  store: RunStore,
  log: Logger,
) {
  try {
    for await (const p of points) await store.appendInfra([p]);
  } catch (err) {
    log.warn({ err }, "observe failed");
  }
}
