// What the CLI prints of a run and its exit code, from the database or the server's API (no database module:
// the packed CLI uses it too).
import { setTimeout } from "node:timers/promises";
import type { RunViewAnswer } from "@opsbench/api";
import { isFinalRunStatus } from "@opsbench/core";

/**
 * What the CLI prints and decides its exit code from: a run as the server's API answers it (@opsbench/api's run
 * view) or as the database gives it (its RunView has the same shape).
 */
export type RunReport = Pick<RunViewAnswer, "id" | "status" | "error" | "k6ExitCode" | "summary" | "steps">;

/**
 * Polls a run with `load` until it is final, printing status and step changes as they happen. `signal` ends the
 * wait between polls (the command was interrupted), rejecting with its reason.
 */
export async function pollRun<V extends RunReport>(load: () => Promise<V>, log: (m: string) => void, signal?: AbortSignal): Promise<V> {
  let lastStatus = "";
  const seenSteps = new Map<string, string>();
  let lastLoadReport = 0;
  for (;;) {
    const view = await load();
    if (view.status !== lastStatus) {
      log(`run ${view.id.slice(0, 8)}: ${view.status}${view.error ? `: ${view.error}` : ""}`);
      lastStatus = view.status;
    }
    for (const s of view.steps) {
      const key = `${s.status}`;
      if (seenSteps.get(s.name) === key) continue;
      seenSteps.set(s.name, key);
      const took = s.durationMs !== null ? ` in ${(s.durationMs / 1000).toFixed(1)} s` : "";
      log(`  ${s.name.toLowerCase()}: ${s.status.toLowerCase()}${took}${s.error ? `: ${s.error}` : ""}`);
    }
    if (view.status === "RUNNING" && view.summary && Date.now() - lastLoadReport > 10_000) {
      lastLoadReport = Date.now();
      log(`  load: ${view.summary.requests} requests so far, p95 ${view.summary.latencyMs.p95} ms`);
    }
    if (isFinalRunStatus(view.status)) return view;
    await setTimeout(1000, undefined, signal ? { signal } : {}).catch((err) => {
      throw signal?.aborted ? signal.reason : err;
    });
  }
}

/** The summary `runs show --json` and `run --json` print. */
export function runSummaryJson(view: RunReport) {
  const s = view.summary;
  return {
    id: view.id,
    status: view.status,
    requests: s?.requests ?? 0,
    failures: s?.failures ?? 0,
    goodput: s?.goodput ?? 0,
    rps: s?.rps ?? 0,
    durationSeconds: s?.durationSeconds ?? 0,
    ...(s?.durationSource ? { durationSource: s.durationSource } : {}),
    latencyMs: s?.latencyMs ?? { min: 0, avg: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0 },
    ...(view.error ? { error: view.error } : {}),
    k6ExitCode: view.k6ExitCode,
  };
}

export function formatSummary(view: RunReport): string {
  const s = view.summary;
  if (!s) return `run ${view.id}: ${view.status}, no results`;
  const l = s.latencyMs;
  return [
    `run ${view.id}: ${view.status}`,
    `  requests ${s.requests}, failed ${s.failures}, goodput ${s.goodput.toFixed(2)} %, ${s.rps.toFixed(1)} req/s over ${s.durationSeconds.toFixed(1)} s`,
    `  latency ms: avg ${l.avg.toFixed(2)}  min ${l.min.toFixed(2)}  med ${l.p50.toFixed(2)}  p90 ${l.p90.toFixed(2)}  p95 ${l.p95.toFixed(2)}  p99 ${l.p99.toFixed(2)}  max ${l.max.toFixed(2)}`,
  ].join("\n");
}

/** The CLI's exit code for a finished run: 0 succeeded, 99 thresholds failed, 1 otherwise. */
export function exitCodeFor(view: RunReport): number {
  if (view.status !== "SUCCEEDED") return 1;
  return view.k6ExitCode === 99 ? 99 : 0;
}
