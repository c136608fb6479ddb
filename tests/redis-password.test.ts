// A Redis with a password holding URL-breaking characters, reached through a URL
// built from parts: by ioredis (web, worker) and by a BullMQ queue (jobs).
import { type ChildProcess, spawn } from "node:child_process";
import { redisUrl } from "@opsbench/core";
import { createRunQueue } from "@opsbench/jobs";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, waitForPort } from "./ports";

const password = "p@ss#w?rd/:x% &=";
let port: number;
let server: ChildProcess;

beforeAll(async () => {
  port = await freePort();
  server = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--requirepass", password], {
    stdio: "ignore",
  });
  await waitForPort(port);
});
afterAll(async () => {
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGKILL");
  await exited;
});

describe("Redis with a password (URL from parts)", () => {
  it("ioredis and a BullMQ queue both authenticate with the encoded password", async () => {
    const url = redisUrl({ host: "127.0.0.1", port, password, db: 3 });
    const redis = new Redis(url);
    try {
      expect(await redis.ping()).toBe("PONG");
      await redis.set("k", "v");
      expect(await redis.get("k")).toBe("v");
    } finally {
      redis.disconnect();
    }
    const queue = createRunQueue(url);
    try {
      expect((await queue.getJobCounts("waiting")).waiting).toBe(0);
    } finally {
      await queue.close();
    }
  });

  it("the wrong password is refused (the server really checks)", async () => {
    const redis = new Redis(redisUrl({ host: "127.0.0.1", port, password: "wrong" }), {
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    redis.on("error", () => {});
    await expect(redis.ping()).rejects.toThrow(/WRONGPASS|NOAUTH|invalid/i);
    redis.disconnect();
  });
});
