// One load test at a time on a machine: two would measure each other. Single runs
// (run queue) and study runs (study queue) of every worker process on the host take
// this lock around each run. It lives in Redis, under the installation's queue
// prefix (packages/jobs queuePrefix, so test stacks stay apart), keyed by the host's
// identity: every worker that loads from the same machine names the same host.
//
// A lease, not a flag: the holder renews it every third of its length, so a holder
// that is killed frees the machine within one lease. Waiters queue with a ticket
// (first come, first served, across processes) and ask again every `pollMs`; a waiter
// that stops asking (killed) leaves the queue after WAITER_TTL_MS. A wait can be
// aborted. The lock also remembers when the machine last carried load (a killed
// holder's load counts as ended at its last renewal), so a study's cool-down counts
// from the end of whatever ran last on the host, whichever worker ran it.
//
// A small set of Lua scripts rather than a library: the well-kept Redis mutexes on
// npm (redis-semaphore, redlock) poll without a queue, so a waiter can be overtaken
// forever, take no AbortSignal, and keep no "last released" time; each of those would
// be a second key and a script next to the library anyway (docs/architecture.md).
import { randomUUID } from "node:crypto";
import os from "node:os";
import type { Redis } from "ioredis";
import { loadLockWaitSeconds } from "@opsbench/jobs";

export type Release = () => Promise<void>;

/** The lease's default length: renewed every 10 s, so a killed holder frees the host within 30 s. */
export const LOAD_LEASE_MS = 30_000;
/** A waiter that has not asked again for this long (its process died) leaves the queue. */
export const WAITER_TTL_MS = 10_000;

export interface LoadLockOptions {
  /** Redis (a client of opsbench's; commands only, it is never put into subscriber mode). */
  redis: Pick<Redis, "eval">;
  /** The installation's key prefix (packages/jobs queuePrefix). */
  prefix: string;
  /** Which machine's load this lock serialises; every worker loading from that machine must name the same. */
  host?: string;
  leaseMs?: number;
  /** How often a waiter asks again. */
  pollMs?: number;
  /** How long a waiter that stopped asking keeps its place (default WAITER_TTL_MS). */
  waiterTtlMs?: number;
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

// Every timestamp is Redis's own clock (TIME), so workers whose clocks differ agree on order and ages;
// callers only ever get an age back.
const NOW = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)";

// KEYS: holder, queue, alive, seq, released, renewed, holds. ARGV: token, leaseMs, waiterTtlMs.
// Answers {1, ms since the host last carried load or -1} when granted, {0, place in the queue} when not.
// A token that already holds the lease (a shared one: the segments of one run on this host) is granted again and
// counted in `holds`; the lease goes when the last of them releases.
const ACQUIRE = `${NOW}
local holder, queue, alive, seq, released, renewed, holds = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local token, lease, waiterTtl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', alive, '-inf', now)) do
  redis.call('ZREM', queue, gone)
  redis.call('ZREM', alive, gone)
end
local current = redis.call('GET', holder)
if current == token then
  redis.call('PEXPIRE', holder, lease)
  redis.call('INCR', holds)
  return {1, -1}
end
if not redis.call('ZSCORE', queue, token) then
  redis.call('ZADD', queue, redis.call('INCR', seq), token)
end
redis.call('ZADD', alive, now + waiterTtl, token)
local place = redis.call('ZRANK', queue, token)
if current or place > 0 then
  return {0, place}
end
local last = tonumber(redis.call('GET', released) or '0')
local renewedAt = tonumber(redis.call('GET', renewed) or '0')
if renewedAt > last then
  -- the previous holder's lease ran out without a release: its load ended at the latest at its last renewal
  last = renewedAt
  redis.call('SET', released, last)
end
redis.call('ZREM', queue, token)
redis.call('ZREM', alive, token)
redis.call('SET', holder, token, 'PX', lease)
redis.call('SET', holds, 1)
redis.call('SET', renewed, now)
if last == 0 then
  return {1, -1}
end
return {1, now - last}`;

// KEYS: holder, renewed. ARGV: token, leaseMs. 1 while this token holds the lease.
const RENEW = `${NOW}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
redis.call('SET', KEYS[2], now)
return 1`;

// KEYS: holder, released, holds. ARGV: token. 1 if this token held the lease (released once no other hold remains).
const RELEASE = `${NOW}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(redis.call('DECR', KEYS[3])) > 0 then return 1 end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], now)
return 1`;

// KEYS: queue, alive. ARGV: token. A waiter that gives up.
const LEAVE = `redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1`;

/** The host identity a worker uses when none is configured: OPSBENCH_LOAD_HOST is read by env.ts. */
export const defaultLoadHost = () => os.hostname();

export class LoadLock {
  readonly host: string;
  /** When the host last stopped carrying load (ms since epoch, this process's clock), as of this lock's last acquire or release; null if nothing ran yet. */
  lastReleasedAt: number | null = null;
  private readonly redis: LoadLockOptions["redis"];
  private readonly key: (part: string) => string;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly waiterTtlMs: number;
  private readonly log: LoadLockOptions["log"];
  private holding = 0;

  constructor(opts: LoadLockOptions) {
    this.redis = opts.redis;
    this.host = opts.host ?? defaultLoadHost();
    const base = `${opts.prefix}:load-lock:${this.host}`;
    this.key = (part) => `${base}:${part}`;
    this.leaseMs = opts.leaseMs ?? LOAD_LEASE_MS;
    this.pollMs = opts.pollMs ?? 250;
    this.waiterTtlMs = opts.waiterTtlMs ?? WAITER_TTL_MS;
    this.log = opts.log;
  }

  /** Whether this process holds the host's lock now (through this object). */
  get held(): boolean {
    return this.holding > 0;
  }

  /**
   * Waits for the host, first come first served. Rejects if `signal` aborts while waiting (nothing is then
   * held). A Redis that does not answer is waited for, like a busy host.
   */
  async acquire(signal?: AbortSignal, opts: { shareAs?: string } = {}): Promise<Release> {
    if (signal?.aborted) throw abortError(signal);
    // `shareAs`: holders naming the same share hold the host together (the segments of one run on this host).
    const token = opts.shareAs ? `share:${opts.shareAs}` : randomUUID();
    const waited = loadLockWaitSeconds.startTimer();
    const k = this.key;
    let failing = false;
    for (;;) {
      let answer: [number, number] | null = null;
      try {
        answer = (await this.redis.eval(
          ACQUIRE,
          7,
          k("holder"),
          k("queue"),
          k("alive"),
          k("seq"),
          k("released"),
          k("renewed"),
          k("holds"),
          token,
          this.leaseMs,
          this.waiterTtlMs,
        )) as [number, number];
        if (failing) this.log?.warn({ host: this.host }, "load lock: Redis answers again");
        failing = false;
      } catch (err) {
        if (!failing) this.log?.warn({ err, host: this.host }, "load lock: Redis does not answer; waiting for it");
        failing = true;
      }
      if (answer?.[0] === 1) {
        const release = this.granted(token, answer[1]);
        if (signal?.aborted) {
          await release();
          waited({ outcome: "aborted" });
          throw abortError(signal);
        }
        waited({ outcome: "acquired" });
        return release;
      }
      try {
        await sleep(this.pollMs, signal);
      } catch (err) {
        await this.redis.eval(LEAVE, 2, k("queue"), k("alive"), token).catch(() => {});
        waited({ outcome: "aborted" });
        throw err;
      }
    }
  }

  /** Runs `fn` holding the lock. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      await release();
    }
  }

  private granted(token: string, idleMs: number): Release {
    this.holding++;
    this.lastReleasedAt = idleMs >= 0 ? Date.now() - idleMs : this.lastReleasedAt;
    const k = this.key;
    let lost = false;
    const renew = setInterval(
      () => {
        this.redis.eval(RENEW, 2, k("holder"), k("renewed"), token, this.leaseMs).then(
          (ok) => {
            if (ok === 1 || lost) return;
            lost = true;
            this.log?.error(
              { host: this.host },
              "load lock: the lease ran out while held (Redis lost it, or this process stalled); another load may overlap",
            );
          },
          (err) => this.log?.warn({ err, host: this.host }, "load lock: could not renew the lease; trying again"),
        );
      },
      Math.max(100, Math.floor(this.leaseMs / 3)),
    );
    renew.unref();
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      clearInterval(renew);
      this.holding--;
      this.lastReleasedAt = Date.now();
      // A release that cannot be written (Redis restarting) is tried again until the lease would have run out anyway.
      const until = Date.now() + this.leaseMs;
      for (;;) {
        try {
          await this.redis.eval(RELEASE, 3, k("holder"), k("released"), k("holds"), token);
          return;
        } catch (err) {
          if (Date.now() + this.pollMs >= until) {
            this.log?.warn({ err, host: this.host }, "load lock: could not release; the lease runs out instead");
            return;
          }
          await sleep(this.pollMs);
        }
      }
    };
  }
}

/**
 * The host as a run holds it. A run steps away while it does what loads nothing and may take seconds (its proofs of
 * host ownership ask a server the user named), so another run does not wait on that server.
 */
export interface HostHold {
  /**
   * Releases the host, runs `fn`, then waits for the host again (behind whoever came meanwhile). When `fn` throws the
   * host stays released: what is left of the run is its failure and teardown, which load nothing.
   */
  away<T>(fn: () => Promise<T>): Promise<T>;
  /** Releases the host if it is held (again: nothing). */
  release: Release;
}

/** Takes the host, then `settle` (a study's cool-down, on this first take only), and holds it for a run. */
export async function holdHost(lock: LoadLock, signal: AbortSignal, settle?: () => Promise<void>): Promise<HostHold> {
  let held: Release | null = await lock.acquire(signal);
  try {
    await settle?.();
  } catch (err) {
    await held();
    throw err;
  }
  const release = async () => {
    const r = held;
    held = null;
    await r?.();
  };
  return {
    release,
    async away(fn) {
      await release();
      const result = await fn();
      held = await lock.acquire(signal);
      return result;
    },
  };
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
