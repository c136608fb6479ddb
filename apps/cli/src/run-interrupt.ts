// SIGINT or SIGTERM while the CLI waits for a run on the server (a CI job cancelled, a new push superseding it,
// Ctrl-C): the run is aborted on the server, whose abort path stops the load, tears the target down and releases
// the host's load lock, then the command exits 130 (SIGINT) or 143 (SIGTERM) after saying what it did. Without
// this the CLI died and the run went on loading the target. No database module: the packed CLI holds this.
import { EXIT, Interrupted } from "./exit-codes";
import { type Remote, remoteAbortRun } from "./remote-client";

type Signal = "SIGINT" | "SIGTERM";

/** The abort's own bound: CI runners send SIGKILL seconds after SIGINT/SIGTERM (GitHub Actions: 7.5 s, then 2.5 s). */
const ABORT_TIMEOUT_MS = 5_000;

export class RunInterrupt {
  /** The signal received, once one came. */
  received: Signal | null = null;
  private readonly controller = new AbortController();
  private runId: string | null = null;
  private readonly onSignal = (signal: Signal) => {
    if (this.received) {
      this.say(`${signal} again: leaving without waiting for the abort`);
      process.exit(EXIT[signal]);
    }
    this.received = signal;
    this.say(`${signal}: aborting ${this.runId ? `run ${this.runId}` : "the run as soon as it is created"} on ${this.remote.url}...`);
    this.controller.abort(new Interrupted(`stopped by ${signal}`, signal));
  };

  constructor(
    private readonly remote: Remote,
    private readonly say: (m: string) => void,
  ) {
    process.on("SIGINT", this.onSignal);
    process.on("SIGTERM", this.onSignal);
  }

  /** Aborted when a signal comes: the wait between polls and the request under way end at once. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The remote to poll with: its calls end when a signal comes. */
  get polling(): Remote {
    return { ...this.remote, signal: this.controller.signal };
  }

  /** The run now waited for (a signal from here on aborts it). */
  follow(runId: string): void {
    this.runId = runId;
  }

  /**
   * After the wait failed: when a signal caused it, aborts the run on the server, says how that went and throws
   * Interrupted (exit 130/143); any other failure is thrown as it is.
   */
  async failed(err: unknown): Promise<never> {
    if (!this.received) throw err;
    if (this.runId) {
      const remote = { ...this.remote, signal: undefined, timeoutMs: ABORT_TIMEOUT_MS, retryForMs: ABORT_TIMEOUT_MS };
      try {
        const r = await remoteAbortRun(remote, this.runId);
        this.say(
          r.aborted
            ? `run ${this.runId} aborted on ${this.remote.url} (the server stops its load and tears the target down)`
            : `run ${this.runId} had already ended (${r.status}): nothing to abort`,
        );
      } catch (abortErr) {
        this.say(`could not abort run ${this.runId}: ${(abortErr as Error).message}; abort it at ${this.remote.url}/runs/${this.runId}`);
      }
    }
    throw new Interrupted(`stopped by ${this.received}${this.runId ? ` while waiting for run ${this.runId}` : ""}`, this.received);
  }

  /** Stops listening: the run is final, or the command is done. */
  release(): void {
    process.off("SIGINT", this.onSignal);
    process.off("SIGTERM", this.onSignal);
  }
}

/**
 * Creates a run with `create`, then waits for it with `wait`, aborting it on the server when SIGINT or SIGTERM
 * comes meanwhile (also when the signal came while it was being created: its id is awaited first).
 */
export async function waitAbortingOnSignal<C extends { id: string }, T>(
  remote: Remote,
  say: (m: string) => void,
  create: () => Promise<C>,
  wait: (created: C, polling: Remote, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const interrupt = new RunInterrupt(remote, say);
  try {
    const created = await create();
    interrupt.follow(created.id);
    if (interrupt.received) return await interrupt.failed(null);
    return await wait(created, interrupt.polling, interrupt.signal).catch((err) => interrupt.failed(err));
  } finally {
    interrupt.release();
  }
}
