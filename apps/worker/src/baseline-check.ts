// The baseline check before a run's load: the provider's reset() brings the
// target back to its minimum replicas/instances (scale-down, cold instances).
// It gets a bounded wait; a target that is not back by then (or whose reset
// says it could not get there: a ProviderError) still runs, and the run is
// flagged (baseline-not-reached) rather than silently compared with the others.
import { ProviderError } from "@opsbench/providers";

export type BaselineOutcome = { reached: true; waitedMs: number } | { reached: false; waitedMs: number; reason: string };

/**
 * Calls `reset(signal)` and waits at most `waitMs` for it. The signal it gets
 * aborts when the wait is over (so a polling reset stops) or the run is aborted.
 * An aborted run, or an unexpected error (a bug, not a target state), is thrown.
 */
export async function checkBaseline(
  reset: (signal: AbortSignal) => Promise<void>,
  opts: { waitMs: number; signal: AbortSignal },
): Promise<BaselineOutcome> {
  const started = Date.now();
  const wait = new AbortController();
  const timer = setTimeout(() => wait.abort(new Error(`baseline wait of ${opts.waitMs} ms is over`)), opts.waitMs);
  const signal = AbortSignal.any([opts.signal, wait.signal]);
  let onAbort = () => {};
  try {
    await Promise.race([
      reset(signal),
      new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason);
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
    return { reached: true, waitedMs: Date.now() - started };
  } catch (err) {
    if (opts.signal.aborted) throw err;
    const waitedMs = Date.now() - started;
    if (wait.signal.aborted)
      return { reached: false, waitedMs, reason: `not back at baseline within ${Math.round(opts.waitMs / 100) / 10} s` };
    if (err instanceof ProviderError) return { reached: false, waitedMs, reason: err.message };
    throw err;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
}
