// GET /api/health against the real stack: Postgres, Redis, the worker's heartbeat
// and queue depth, and nothing secret in the answer. And the Helm chart's web and worker commands
// (deploy/helm/opsbench), started here as processes with the chart's environment: they serve.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { createRunQueue, readWorkerHeartbeats } from "@opsbench/jobs";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { startWeb, WebPortTakenError } from "../../../apps/cli/src/processes";
import type { CliEnv } from "../../../apps/cli/src/env";
import { fileRunnerEnv, freePort, useRunner } from "../../../tests/file-services";
import { testDatabaseUrl, testRedisUrl, testWebUrl } from "../../../tests/helpers";
import { containerOf, objectOf, renderOpsbenchChart, resolvedEnv } from "../../../tests/opsbench-chart";
import { testStack } from "../../../tests/stack-env";

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

// The chart's commands as the images run them, outside Kubernetes: /app is this repository (both images' WORKDIR
// holds it), `node` this Node. What differs from a pod is only where the services are: the file's database and Redis
// (DATABASE_URL and REDIS_URL win over the chart's POSTGRES_* / REDIS_* parts), its runner's socket, a free port, and
// the test's web build.
describe("the Helm chart's web and worker commands, with the chart's environment", () => {
  const repoRoot = path.resolve(import.meta.dirname, "../../..");
  const objects = renderOpsbenchChart({ release: "ops" });
  const children: ChildProcess[] = [];
  afterAll(async () => {
    await Promise.all(
      children.map((c) =>
        c.exitCode !== null || c.signalCode
          ? null
          : new Promise((r) => {
              c.once("exit", r);
              c.kill("SIGTERM");
            }),
      ),
    );
  });

  /** Spawns a container's command (node -> this node, /app -> the repository) with its resolved environment plus `env`. */
  const start = (deployment: string, container: string, env: Record<string, string>, replace: (args: string[]) => string[] = (a) => a) => {
    const c = containerOf(objectOf(objects, "Deployment", deployment), container);
    const [cmd, ...args] = [...(c.command ?? []), ...(c.args ?? [])];
    expect(cmd).toBe("node");
    const cwd = (c.workingDir ?? "/app").replace(/^\/app/, repoRoot);
    let log = "";
    const child = spawn(process.execPath, replace(args), {
      cwd,
      // NODE_ENV as both images set it (the Dockerfile's ENV).
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", ...resolvedEnv(c, objects), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (d) => (log = (log + d).slice(-4000)));
    child.stderr?.on("data", (d) => (log = (log + d).slice(-4000)));
    children.push(child);
    return { child, log: () => log };
  };
  const services = () => ({ DATABASE_URL: testDatabaseUrl(), REDIS_URL: testRedisUrl() });

  it("web: `next start` answers /api/health with Postgres and Redis ok", async () => {
    const web = containerOf(objectOf(objects, "Deployment", "ops-opsbench-web"), "web");
    expect(web.env?.find((e) => e.name === "OPSBENCH_AUTH")?.value).toBe("required");
    const port = await freePort();
    const { child, log } = start("ops-opsbench-web", "web", { ...services(), OPSBENCH_NEXT_DIST_DIR: testStack.nextDistDir }, (args) =>
      args.map((a, i) => (args[i - 1] === "-p" ? String(port) : a)),
    );
    await expect
      .poll(
        async () => {
          if (child.exitCode !== null) throw new Error(`the chart's web command exited ${child.exitCode}: ${log()}`);
          const res = await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null);
          return res ? { status: res.status, body: await res.json() } : null;
        },
        { timeout: 90_000, interval: 500 },
      )
      .toMatchObject({ status: 200, body: { database: { ok: true }, redis: { ok: true } } });
  });

  it("worker: starts with its runner's socket and writes its heartbeat (the pod's readiness)", async () => {
    await useRunner();
    const { child, log } = start("ops-opsbench-worker", "worker", { ...services(), ...fileRunnerEnv() });
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 3 });
    try {
      await expect
        .poll(
          async () => {
            if (child.exitCode !== null) throw new Error(`the chart's worker command exited ${child.exitCode}: ${log()}`);
            return (await readWorkerHeartbeats(redis)).some((b) => b.pid === child.pid && b.host === os.hostname());
          },
          { timeout: 90_000, interval: 500 },
        )
        .toBe(true);
    } finally {
      redis.disconnect();
    }
  });
});
