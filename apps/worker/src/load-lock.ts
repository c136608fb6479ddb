// One load test at a time on this machine: two would measure each other. Single
// runs (run queue) and study runs (study queue) take this lock around each run,
// first come first served. It also remembers when the machine last carried
// load, so a study's cool-down counts from the end of whatever ran last.

export type Release = () => void;

export class LoadLock {
  private busy = false;
  private readonly waiters: Array<() => void> = [];
  /** When the lock was last released (ms since epoch); null if nothing ran yet. */
  lastReleasedAt: number | null = null;

  get held(): boolean {
    return this.busy;
  }

  /** Waits for the machine. Rejects if `signal` aborts while waiting (nothing is then held). */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(this.releaser());
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(abortError(signal!));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  /** Runs `fn` holding the lock. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private releaser(): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.lastReleasedAt = Date.now();
      const next = this.waiters.shift();
      if (next) next();
      else this.busy = false;
    };
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error("aborted");
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
