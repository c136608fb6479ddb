// Step 4, load: k6 (the pinned binary, with opsbench's output) runs the compiled
// workload against the deployment; its per-second aggregates go to Postgres as they
// come, while the provider's observe() records replicas and CPU alongside.
// k6's exit code 99 (thresholds failed) is a result, not a failure.
import { compileEngineInput, generatorsOf, HttpSeriesCap, overLimitsFlag, type WorkspaceLimits } from "@opsbench/core";
import { addRunFlags } from "@opsbench/db";
import type { InfraPoint, Provider } from "@opsbench/providers";
import type { Logger } from "../logger";
import { K6_THRESHOLDS_FAILED, type K6Owned, type K6Result } from "@opsbench/jobs";
import { ResultWriter } from "../result-writer";
import { runSegmentedLoad } from "../segments/coordinator";
import type { AdmittedHost } from "./load-host-check";
import type { Provisioned } from "./provision";
import { recordStep } from "./record-step";
import { providerContext, type RunContext } from "./run-context";
import { RunFailure } from "./run-failure";
import { type ScriptEnv, scriptEnvOf } from "./script-env";

/** k6's result, and k6's own clock from its output (the test's start and last sample), when the build writes it. */
export type LoadResult = K6Result & { k6Clock: ResultWriter["k6Clock"] };

/**
 * `host`: the load host admitted after deploy (load-host-check.ts), whose pinned address the runner loads alone;
 * null for a target this machine serves (the runner's loopback rules).
 */
export async function load(
  ctx: RunContext,
  provider: Provider,
  { workload, dep, credential }: Provisioned,
  limits: Pick<WorkspaceLimits, "maxHttpSeries"> & Partial<Pick<WorkspaceLimits, "maxVUs" | "maxDurationSeconds" | "maxArrivalRate">>,
  host: AdmittedHost | null,
): Promise<LoadResult> {
  const { store, signal, log, deps } = ctx;
  return recordStep(ctx, "LOAD", async () => {
    // The script's __ENV, secrets opened; a secret that does not open fails the run before anything loads.
    const script = await scriptEnvOf(deps.db, ctx.runId, dep.endpoint, deps.secretKey);
    return loadMasked(script, async () => {
      // Results of an earlier, interrupted attempt are not mixed with this one's.
      await store.clearResults();
      const seriesCap = new HttpSeriesCap(limits.maxHttpSeries);
      const writer = new ResultWriter(store, () => ctx.publish("results"), log, { outageWaitMs: deps.dbOutageWaitMs, seriesCap });
      const observing = new AbortController();
      const observer = observeInto(provider.observe(dep, { signal: observing.signal }, providerContext(ctx, credential)), writer, log);
      await store.update({ loadStartedAt: new Date() });
      // k6's process group and network on the runner's host go on the step as soon as they exist: the
      // runner stops them if this worker goes away, and whoever finds the run interrupted asks it again.
      let recording: Promise<unknown> = Promise.resolve();
      const recordOwned = (k6: K6Owned) => {
        recording = recording
          .then(() => store.stepDetail("LOAD", { k6 }))
          .catch((err) => log.warn({ err }, "could not record k6's process"));
      };
      try {
        const generators = generatorsOf(workload);
        if (generators > 1) {
          if (!deps.segments)
            throw new RunFailure(`the workload asks for ${generators} load generators, but this worker cannot split runs`);
          const split = await runSegmentedLoad(ctx, generators, deps.segments);
          if (split.flags.length) await addRunFlags(deps.db, ctx.runId, split.flags);
          await store.update({
            loadFinishedAt: new Date(),
            k6ExitCode: split.result.exitCode,
            thresholdsOk: split.result.exitCode !== K6_THRESHOLDS_FAILED,
          });
          if (signal.aborted) throw new RunFailure("aborted during load");
          return { result: { ...split.result, k6Clock: split.k6Clock }, detail: { exitCode: split.result.exitCode, generators } };
        }
        const result = await deps.k6.runner.runK6(
          {
            key: ctx.runId,
            ...compileEngineInput(workload),
            env: script.env,
            // The address admitted for the run: the runner loads it alone, without resolving again.
            pinnedAddress: host?.admission.address ?? null,
            deadline: deps.k6.deadline,
            blockHosts: deps.k6.blockHosts,
            blockPorts: deps.k6.blockPorts ?? [],
            limits: k6Limits(limits),
          },
          { signal, onLine: (line) => writer.add(line), onOwned: recordOwned },
        );
        await recording;
        // What the script's handleSummary() wrote: kept with the run (within the runner's caps), whatever k6's exit.
        if (result.artifacts.length) await store.saveArtifacts(result.artifacts);
        if (result.dropped.length)
          await store.event("warn", script.mask(`files the script wrote and the run did not keep: ${result.dropped.join(", ")}`));
        if (result.unsandboxed) await addRunFlags(deps.db, ctx.runId, [result.unsandboxed]);
        if (result.overLimits) await addRunFlags(deps.db, ctx.runId, [overLimitsFlag(result.overLimits)]);
        await store.update({
          loadFinishedAt: new Date(),
          k6ExitCode: result.exitCode,
          thresholdsOk: result.exitCode !== K6_THRESHOLDS_FAILED,
        });
        await writer.close();
        const folded = seriesCap.flag();
        if (folded) await addRunFlags(deps.db, ctx.runId, [folded]);
        if (result.malformedLines)
          await store.event("warn", `${result.malformedLines} malformed line(s) from the k6 output were not counted`);
        if (result.overLimits) throw new RunFailure(`k6 was stopped: ${result.overLimits}`);
        if (result.resourceLimit) throw new RunFailure(result.resourceLimit);
        if (signal.aborted) throw new RunFailure("aborted during load");
        if (result.deadlineExceeded) throw new RunFailure(result.deadlineExceeded);
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
  });
}

/** Runs the load with every error's message masked: k6's output tail may echo a secret the script was given. */
async function loadMasked<T>(script: ScriptEnv, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof Error) {
      const masked = script.mask(err.message);
      if (masked !== err.message) throw err instanceof RunFailure ? new RunFailure(masked) : new Error(masked);
    }
    throw err;
  }
}

/** The limits the runner holds k6 to (its inspect and its own plan), when the run's are known. */
export function k6Limits(limits: Partial<Pick<WorkspaceLimits, "maxVUs" | "maxDurationSeconds" | "maxArrivalRate">>) {
  const { maxVUs, maxDurationSeconds, maxArrivalRate } = limits;
  return maxVUs !== undefined && maxDurationSeconds !== undefined && maxArrivalRate !== undefined
    ? { maxVUs, maxDurationSeconds, maxArrivalRate }
    : null;
}

/** Stores the provider's observations (with the results, riding out a database blip) until the load ends; a failing observer is logged, and the run goes on. */
async function observeInto(points: AsyncIterable<InfraPoint>, writer: ResultWriter, log: Logger) {
  try {
    for await (const p of points) writer.addInfra(p);
  } catch (err) {
    log.warn({ err }, "observe failed");
  }
}
