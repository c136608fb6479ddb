// Riding out a database blip (a restart, a failover): the worker waits for Postgres to
// come back instead of failing the run. Two layers: the pool waits for a connection
// (always safe: nothing was sent yet), and callers retry what was in flight when the
// server went away (retryWhileDown), for work that is safe to repeat.
import pg from "pg";

/** Connection-level failures: the server is down, restarting or unreachable (never a bad query or bad credentials). */
const OUTAGE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "EPIPE", "57P01", "57P02", "57P03", "53300"]);
const OUTAGE_MESSAGE =
  /ECONNREFUSED|ECONNRESET|Connection terminated|terminating connection|database system is (starting up|shutting down|in recovery)|Can't reach database|timeout exceeded when trying to connect|Server has closed the connection|Connection ended unexpectedly|the connection is closed|Client has encountered a connection error|Unable to start a transaction in the given time/i;

/** Whether an error (or one it wraps) says the database could not be reached, as opposed to a query the database refused. */
export function isDatabaseOutage(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    if (typeof e !== "object") return OUTAGE_MESSAGE.test(String(e));
    const { code, message, cause, meta } = e as { code?: unknown; message?: unknown; cause?: unknown; meta?: unknown };
    if (typeof code === "string" && OUTAGE_CODES.has(code)) return true;
    if (typeof message === "string" && OUTAGE_MESSAGE.test(message)) return true;
    // Prisma's driver-adapter errors carry the pg error in meta.driverAdapterError.cause.
    e = cause ?? (meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError;
  }
  return false;
}

export interface OutageWait {
  /** How long one operation waits for the database before its error is let through (ms). */
  maxWaitMs: number;
  /** Told once per operation that starts waiting (e.g. to log it). */
  onWait?: (err: unknown) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Delay before attempt `n` (1-based): 200 ms doubling, at most 2 s. */
export const outageBackoffMs = (n: number) => Math.min(2000, 200 * 2 ** (n - 1));

/** Runs `fn`, and again with backoff while it fails with a database outage, for at most `maxWaitMs`; other errors go straight through. */
export async function retryWhileDown<T>(fn: () => Promise<T>, { maxWaitMs, onWait }: OutageWait): Promise<T> {
  const until = Date.now() + maxWaitMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isDatabaseOutage(err) || Date.now() >= until) throw err;
      if (attempt === 1) onWait?.(err);
      await sleep(Math.min(outageBackoffMs(attempt), Math.max(0, until - Date.now())));
    }
  }
}

type ConnectCallback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

/** A pg pool whose connect() waits (bounded) for a database that is down; a query only starts once it has a connection. */
export class WaitingPool extends pg.Pool {
  constructor(
    config: pg.PoolConfig,
    private wait: OutageWait,
  ) {
    super(config);
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | undefined {
    const connected = retryWhileDown(() => super.connect(), this.wait);
    if (!callback) return connected;
    connected.then(
      (client) => callback(undefined, client, (release) => client.release(release as Error | undefined)),
      (err: Error) => callback(err, undefined, () => {}),
    );
    return undefined;
  }
}

/**
 * The same object with each method retried while the database is down (retryWhileDown): for stores whose
 * writes are safe to repeat (status, steps, summary), so a run's bookkeeping waits for the database.
 */
export function retryingMethods<T extends object>(target: T, wait: OutageWait): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(target)) {
    wrapped[name] =
      typeof value === "function" ? (...args: unknown[]) => retryWhileDown(() => Promise.resolve(value(...args)), wait) : value;
  }
  return wrapped as T;
}
