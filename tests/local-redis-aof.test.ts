// The local Redis keeps queued jobs across a crash: started with the setup's own
// arguments, killed with SIGKILL, started again, the data is still there.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { redisServerArgs } from "../scripts/local-services.mjs";

const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-aof-"));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function startRedis(port: number) {
  const r = spawnSync("redis-server", redisServerArgs(port, dir), { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  const redis = new Redis({ port, host: "127.0.0.1", lazyConnect: true, retryStrategy: (n) => (n > 50 ? null : 100) });
  // Refused connections while it starts are retried; they are not failures.
  redis.on("error", () => {});
  await redis.connect();
  return redis;
}

const pidOf = () => Number(readFileSync(path.join(dir, "redis.pid"), "utf8").trim());
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("local Redis (scripts/local-services.mjs)", () => {
  it("runs with the append-only file and noeviction, and keeps a queued job across a SIGKILL", async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    expect(await redis.config("GET", "appendonly")).toEqual(["appendonly", "yes"]);
    expect(await redis.config("GET", "maxmemory-policy")).toEqual(["maxmemory-policy", "noeviction"]);
    await redis.lpush("opsbench:run-execute:wait", "job-1");
    // appendfsync everysec: give the fsync its second.
    await new Promise((r) => setTimeout(r, 1500));
    const pid = pidOf();
    redis.disconnect();
    process.kill(pid, "SIGKILL");
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);

    redis = await startRedis(port);
    try {
      expect(await redis.lrange("opsbench:run-execute:wait", 0, -1)).toEqual(["job-1"]);
    } finally {
      await redis.shutdown("NOSAVE").catch(() => {});
      redis.disconnect();
    }
  });
});
