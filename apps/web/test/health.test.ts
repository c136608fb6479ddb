// GET /api/health against the real stack: Postgres, Redis, the worker's heartbeat
// and queue depth, and nothing secret in the answer.
import { randomUUID } from "node:crypto";
import http from "node:http";
import os from "node:os";
import { createRunQueue } from "@opsbench/jobs";
import { afterAll, describe, expect, it } from "vitest";
import { startWeb, WebPortTakenError } from "../../../apps/cli/src/processes";
import type { CliEnv } from "../../../apps/cli/src/env";
import { testDatabaseUrl, testRedisUrl, testWebUrl } from "../../../tests/helpers";

const web = testWebUrl();
const queue = createRunQueue(testRedisUrl());
afterAll(() => queue.close());

const health = async () => {
  const res = await fetch(`${web}/api/health`);
  return { res, text: await res.text() };
};

describe("GET /api/health", () => {
  it("reports Postgres, Redis and a live worker as ok, without authentication", async () => {
    const { res, text } = await health();
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("no-store");
    const body = JSON.parse(text);
    expect(body.status).toBe("ok");
    expect(body.database.ok).toBe(true);
    expect(body.redis.ok).toBe(true);
    expect(body.workers.live).toBeGreaterThanOrEqual(1);
    expect(body.workers.heartbeats[0].ageMs).toBeLessThan(20_000);
  });

  it("counts a queued job in the run queue's depth", async () => {
    const before = JSON.parse((await health()).text).queues.run;
    // Delayed a minute, so the worker does not take it before it is removed.
    const job = await queue.add("execute", { runId: randomUUID() }, { delay: 60_000 });
    try {
      const after = JSON.parse((await health()).text).queues.run;
      expect(after.delayed).toBe(before.delayed + 1);
      expect(typeof after.waiting).toBe("number");
      expect(typeof after.active).toBe("number");
    } finally {
      await job.remove();
    }
  });

  it("reveals no connection details", async () => {
    const { text } = await health();
    for (const secret of ["postgresql://", "redis://", testDatabaseUrl(), testRedisUrl(), os.hostname(), "password"]) {
      expect(text).not.toContain(secret);
    }
  });
});

// The report is how `opsbench demo` tells its own web app from another program on the port (apps/cli processes.ts).
describe("starting the web app on a taken port", () => {
  // Both refusals come before any build or start, so the file's database and Redis are all it needs.
  const env = (port: number) => ({ DATABASE_URL: testDatabaseUrl(), REDIS_URL: testRedisUrl(), OPSBENCH_WEB_PORT: port }) as CliEnv;

  it("refuses a port another program answers on, naming it, and starts nothing", async () => {
    const other = http.createServer((_req, res) => res.writeHead(404).end("not found"));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const port = (other.address() as { port: number }).port;
    try {
      const started = startWeb(env(port), () => {});
      await expect(started).rejects.toBeInstanceOf(WebPortTakenError);
      await expect(started).rejects.toThrow(`port ${port} is taken by a program that is not opsbench's web app`);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("uses an opsbench web app already there, unless told each start needs its own", async () => {
    const port = Number(new URL(web).port);
    const reused = await startWeb(env(port), () => {});
    expect(reused).toEqual({ url: `http://127.0.0.1:${port}`, managed: null });
    await expect(startWeb(env(port), () => {}, {}, { reuse: false })).rejects.toThrow(`port ${port} is taken by another opsbench web app`);
  });
});
