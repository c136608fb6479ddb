// The local Redis keeps queued jobs across a crash: started with the setup's own
// arguments, killed with SIGKILL, started again, the data is still there.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { redisServerArgs } from "../scripts/local-services.mjs";
import { freePort, waitForPort } from "./ports";

const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-aof-"));

async function startRedis(port: number) {
  const r = spawnSync("redis-server", redisServerArgs(port, dir), { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  await waitForPort(port);
  return new Redis({ port, host: "127.0.0.1" });
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
      redis.disconnect();
      const last = pidOf();
      process.kill(last, "SIGTERM");
      for (let i = 0; i < 100 && alive(last); i++) await new Promise((r) => setTimeout(r, 50));
    }
  });
});
