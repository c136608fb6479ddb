// The host's load lock (src/load-lock.ts) against the file's real Redis: one holder at a time across
// processes, first come first served, abortable waits, the time the host last carried load shared by every
// holder, and a killed holder (or waiter) that frees the host on its own. Worker processes sharing it:
// tests/faults/one-load-per-host.test.ts.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { queuePrefix } from "@opsbench/jobs";
import { testRedisUrl } from "../../../tests/helpers";
import { LoadLock, sleep } from "../src/load-lock";

const clients: Redis[] = [];
const children: ChildProcess[] = [];
let prefix: string;
beforeAll(() => {
  prefix = queuePrefix(testRedisUrl());
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});
afterAll(async () => {
  for (const c of clients) await c.quit();
});

/** A lock object as a separate worker process would have it: its own Redis connection. */
function lockOn(host: string, opts: { leaseMs?: number; waiterTtlMs?: number; prefix?: string } = {}) {
  const redis = new Redis(testRedisUrl());
  clients.push(redis);
  return new LoadLock({ redis, prefix: opts.prefix ?? prefix, host, pollMs: 20, leaseMs: opts.leaseMs, waiterTtlMs: opts.waiterTtlMs });
}

/** Starts the fixture process on the lock; resolves once it has asked (it may or may not hold it yet). */
function holderProcess(host: string, leaseMs: number, waiterTtlMs: number) {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(import.meta.dirname, "fixtures/hold-load-lock.ts"),
      testRedisUrl(),
      prefix,
      host,
      String(leaseMs),
      String(waiterTtlMs),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  children.push(child);
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  const line = (re: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const m = out.match(re);
        if (m) return resolve(m);
        if (child.exitCode !== null) return reject(new Error(`the holder process exited: ${out}`));
        setTimeout(check, 20);
      };
      check();
    });
  return { child, waiting: () => line(/waiting/), held: async () => Number((await line(/held (\d+)/))[1]) };
}

describe("the host's load lock, in Redis", () => {
  it("one holder at a time across processes, in the order they asked; it remembers when the host was last free", async () => {
    const host = `host-${randomUUID()}`;
    const locks = [lockOn(host), lockOn(host), lockOn(host)];
    expect(locks[0]!.lastReleasedAt).toBeNull();
    const order: string[] = [];
    const inAt: number[] = [];
    const outAt: number[] = [];
    const learnt: Array<number | null> = [];
    let inside = 0;
    let maxInside = 0;
    const job = (i: number) =>
      locks[i]!.run(async () => {
        inside++;
        maxInside = Math.max(maxInside, inside);
        inAt[i] = Date.now();
        learnt[i] = locks[i]!.lastReleasedAt;
        order.push(`${i} in`);
        await sleep(100);
        order.push(`${i} out`);
        inside--;
        outAt[i] = Date.now();
      });
    // Each asks once the one before is holding or queued (Redis's own queue, read as the lock keeps it).
    const queued = async (n: number) => {
      while ((await clients[0]!.zcard(`${prefix}:load-lock:${host}:queue`)) < n) await sleep(5);
    };
    const first = job(0);
    while (inAt[0] === undefined) await sleep(5);
    const second = job(1);
    await queued(1);
    const third = job(2);
    await Promise.all([first, second, third]);
    expect(maxInside).toBe(1);
    expect(order).toEqual(["0 in", "0 out", "1 in", "1 out", "2 in", "2 out"]);
    expect(locks.every((l) => !l.held)).toBe(true);
    // Each later holder learnt from Redis when the previous one (another connection) released: after it left, before it came in.
    expect(learnt[0]).toBeNull();
    for (const i of [1, 2]) {
      expect(learnt[i]!).toBeGreaterThanOrEqual(outAt[i - 1]! - 5);
      expect(learnt[i]!).toBeLessThanOrEqual(inAt[i]! + 5);
    }
  });

  it("a late asker does not overtake: many rounds of two eager holders still let a third in", async () => {
    const host = `host-${randomUUID()}`;
    const [a, b, c] = [lockOn(host), lockOn(host), lockOn(host)];
    let stop = false;
    const eager = async (lock: LoadLock) => {
      while (!stop) await lock.run(() => sleep(30));
    };
    const loops = [eager(a), eager(b)];
    await sleep(100);
    const asked = Date.now();
    await c.run(async () => {});
    // Behind at most the holder and the one already queued (each 30 ms), never starved.
    expect(Date.now() - asked).toBeLessThan(3000);
    stop = true;
    await Promise.all(loops);
  });

  it("other hosts and other installations (queue prefixes) are not held back", async () => {
    const host = `host-${randomUUID()}`;
    const release = await lockOn(host).acquire();
    const otherHost = await lockOn(`${host}-b`).acquire();
    const otherInstall = await lockOn(host, { prefix: `${prefix}-other` }).acquire();
    await Promise.all([release(), otherHost(), otherInstall()]);
  });

  it("holders sharing a hold (one run's segments on this host) hold the host together; it is free once the last lets go", async () => {
    const host = `host-${randomUUID()}`;
    const first = await lockOn(host).acquire(undefined, { shareAs: "run:a" });
    // A second process of the same run is let in while the first holds; another run's is not.
    const second = await lockOn(host).acquire(AbortSignal.timeout(5000), { shareAs: "run:a" });
    let otherHeld = false;
    const other = lockOn(host)
      .acquire(undefined, { shareAs: "run:b" })
      .then((release) => {
        otherHeld = true;
        return release;
      });
    await first();
    await sleep(300);
    expect(otherHeld).toBe(false);
    await second();
    await (await other)();
    expect(otherHeld).toBe(true);
  });

  it("a waiter that gives up (abort) leaves the queue; the others still get their turn", async () => {
    const host = `host-${randomUUID()}`;
    const holder = lockOn(host);
    const release = await holder.acquire();
    const giveUp = new AbortController();
    const waiting = lockOn(host).acquire(giveUp.signal);
    await sleep(50);
    const nextLock = lockOn(host);
    const next = nextLock.acquire();
    await sleep(50);
    giveUp.abort(new Error("study aborted"));
    await expect(waiting).rejects.toThrow("study aborted");
    await release();
    const releaseNext = await next;
    expect(nextLock.held).toBe(true);
    await releaseNext();
    expect(nextLock.held).toBe(false);
  });

  it("a killed holder's lease runs out: the next waiter gets the host, and the cool-down counts from the holder's last renewal", async () => {
    const host = `host-${randomUUID()}`;
    const leaseMs = 1500;
    const holder = holderProcess(host, leaseMs, 10_000);
    const heldAt = await holder.held();
    await sleep(1200); // past its first renewal (every lease / 3)
    const killedAt = Date.now();
    holder.child.kill("SIGKILL");
    const lock = lockOn(host, { leaseMs });
    const release = await lock.acquire(AbortSignal.timeout(10_000));
    const waitedMs = Date.now() - killedAt;
    expect(waitedMs).toBeLessThan(leaseMs + 1000);
    // Its last renewal: after its acquire, at or before its death.
    expect(lock.lastReleasedAt!).toBeGreaterThan(heldAt + 200);
    expect(lock.lastReleasedAt!).toBeLessThanOrEqual(killedAt + 50);
    await release();
  });

  it("a killed waiter at the head of the queue loses its place once it stops asking", async () => {
    const host = `host-${randomUUID()}`;
    const holder = lockOn(host);
    const release = await holder.acquire();
    const waiter = holderProcess(host, 30_000, 1000);
    await waiter.waiting();
    const next = lockOn(host).acquire(AbortSignal.timeout(10_000));
    await sleep(100);
    waiter.child.kill("SIGKILL");
    const releasedAt = Date.now();
    await release();
    const releaseNext = await next;
    // Behind the dead waiter only until its place expired (1 s), not for its 30 s lease.
    expect(Date.now() - releasedAt).toBeLessThan(2000);
    await releaseNext();
  });
});
