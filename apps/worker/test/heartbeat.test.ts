// The worker's heartbeat in Redis, and the container healthcheck that reads it,
// against the test stack's real worker and Redis.
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import {
  isHeartbeatFresh,
  readWorkerHeartbeats,
  WORKER_HEARTBEAT_STALE_MS,
  WORKER_HEARTBEAT_TTL_SECONDS,
  workerHeartbeatKey,
  writeWorkerHeartbeat,
} from "@opsbench/jobs";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testRedisUrl, useWorker } from "../../../tests/helpers";
import { ownHeartbeatAge } from "../src/healthcheck";

const repoRoot = path.resolve(import.meta.dirname, "../../..");
const redis = new Redis(testRedisUrl());
beforeAll(() => useWorker({ asProcess: true }));
afterAll(() => redis.quit());

const runHealthcheck = (redisUrl: string) =>
  spawnSync(process.execPath, ["--import", "tsx", "apps/worker/src/healthcheck.ts"], {
    cwd: repoRoot,
    env: { ...process.env, REDIS_URL: redisUrl },
    encoding: "utf8",
    timeout: 30_000,
  });

describe("worker heartbeat", () => {
  it("the running worker keeps a fresh heartbeat with an expiry", async () => {
    // The worker beats once it consumes, after its start-up reconciliation: wait for that first beat.
    const freshOfThisHost = async () => (await readWorkerHeartbeats(redis)).filter((b) => b.host === os.hostname() && isHeartbeatFresh(b));
    let mine = await freshOfThisHost();
    for (const until = Date.now() + 20_000; mine.length === 0 && Date.now() < until; mine = await freshOfThisHost())
      await new Promise((r) => setTimeout(r, 250));
    expect(mine.length).toBeGreaterThanOrEqual(1);
    const ttl = await redis.ttl(workerHeartbeatKey(mine[0]!.workerId));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(WORKER_HEARTBEAT_TTL_SECONDS);
  });

  it("ownHeartbeatAge finds a host's fresh beat and ignores a stale one", async () => {
    const host = `test-host-${process.pid}`;
    const stale = new Date(Date.now() - WORKER_HEARTBEAT_STALE_MS - 5_000).toISOString();
    const beat = { workerId: `${host}:1`, host, pid: 1, startedAt: stale, at: stale, runIds: [] };
    try {
      await writeWorkerHeartbeat(redis, beat);
      expect(await ownHeartbeatAge(redis, host)).toBeNull();
      await writeWorkerHeartbeat(redis, { ...beat, at: new Date().toISOString() });
      expect(await ownHeartbeatAge(redis, host)).toBeLessThan(5_000);
      expect(await ownHeartbeatAge(redis, `${host}-other`)).toBeNull();
    } finally {
      await redis.del(workerHeartbeatKey(beat.workerId));
    }
  });

  it("the healthcheck script exits 0 beside a live worker and 1 when Redis cannot be reached", () => {
    const healthy = runHealthcheck(testRedisUrl());
    expect(healthy.status, healthy.stderr).toBe(0);
    expect(healthy.stdout).toMatch(/worker heartbeat \d+ s old/);
    const unreachable = runHealthcheck("redis://127.0.0.1:1/0");
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr).toContain("healthcheck:");
  });
});
