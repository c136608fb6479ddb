// GET /api/health against the real stack: Postgres, Redis, the worker's heartbeat
// and queue depth, and nothing secret in the answer. And the Helm chart's web and worker commands
// (deploy/helm/opsbench), started here as processes with the chart's environment: they serve.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createRunQueue, readWorkerHeartbeats } from "@opsbench/jobs";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { startWeb, WebPortTakenError } from "../../../apps/cli/src/processes";
import type { CliEnv } from "../../../apps/cli/src/env";
import { fileRunnerEnv, freePort, useRunner } from "../../../tests/file-services";
import { shortRamp, taewaTarget, testDatabaseUrl, testRedisUrl, testWebUrl, useWorker } from "../../../tests/helpers";
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

// /metrics on both processes (docs/self-hosting.md "Metrics"): a run through the API moves the web app's request
// counter and, on the worker's listener, its queue, phase, load-lock and ingest series. Here because this file
// already has the web app and a worker; the worker is restarted once, with its listener on.
describe("GET /metrics", () => {
  /** The value of one series (name and labels exactly as Prometheus's text writes them), 0 when absent. */
  const sample = (text: string, series: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`${series} `));
    return line ? Number(line.slice(series.length + 1)) : 0;
  };
  const scrape = async (url: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { headers });
    return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() };
  };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${web}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as { id: string };
  };

  it("counts a run on the web app's /metrics and on the worker's listener, and answers only loopback without a token", async () => {
    const port = await freePort();
    const socket = path.join(os.tmpdir(), `opsbench-health-${process.pid}.sock`);
    // An OTLP/HTTP stand-in on loopback: the worker's traces (tracing.ts), JSON as the exporter sends them.
    const spans: string[] = [];
    const otlp = http.createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        if (req.url === "/v1/traces")
          for (const rs of JSON.parse(body).resourceSpans ?? [])
            for (const ss of rs.scopeSpans ?? []) for (const span of ss.spans ?? []) spans.push(span.name);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => otlp.listen(0, "127.0.0.1", resolve));
    // The SDK's batch delay (5 s by default), read from this process's environment: the in-process worker's.
    process.env.OTEL_BSP_SCHEDULE_DELAY = "200";
    await useWorker({
      env: {
        OPSBENCH_WORKER_METRICS_PORT: String(port),
        OPSBENCH_WORKER_HEALTH_SOCKET: socket,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${(otlp.address() as AddressInfo).port}/v1/traces`,
      },
    });
    const worker = `http://127.0.0.1:${port}`;
    const workerBefore = (await scrape(`${worker}/metrics`)).text;
    const runs = (route: string, status: string) => `opsbench_http_requests_total{route="${route}",method="POST",status="${status}"}`;
    const webBefore = (await scrape(`${web}/metrics`)).text;

    await post("/api/v1/targets", taewaTarget("metrics-taewa", { replicas: 1 }));
    await post("/api/v1/workloads", shortRamp("metrics-ramp", { vus: 2, holdSeconds: 1 }));
    const { id } = await post("/api/v1/runs", { target: "metrics-taewa", workload: "metrics-ramp" });
    await expect
      .poll(async () => ((await (await fetch(`${web}/api/v1/runs/${id}`)).json()) as { status: string }).status, {
        timeout: 120_000,
        interval: 500,
      })
      .toBe("SUCCEEDED");

    const webAfter = await scrape(`${web}/metrics`);
    expect(webAfter.status).toBe(200);
    expect(webAfter.type).toContain("text/plain");
    expect(sample(webAfter.text, runs("/api/v1/runs", "201"))).toBe(sample(webBefore, runs("/api/v1/runs", "201")) + 1);
    // One series per route pattern, not per run id.
    expect(sample(webAfter.text, 'opsbench_http_request_seconds_count{route="/api/v1/runs/{id}",method="GET"}')).toBeGreaterThanOrEqual(1);
    expect(webAfter.text).not.toContain(`/api/v1/runs/${id}`);
    expect(webAfter.text).toMatch(/^opsbench_queue_jobs\{queue="run-execute",state="waiting"\} \d+$/m);

    // The run is final when its handler wrote it so; BullMQ counts the job completed once the handler has returned,
    // a moment later (seen on a busy machine: the count had not moved yet).
    const processed = 'opsbench_queue_processing_seconds_count{queue="run-execute",outcome="completed"}';
    await expect
      .poll(async () => sample((await scrape(`${worker}/metrics`)).text, processed) - sample(workerBefore, processed), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(1);
    const after = await scrape(`${worker}/metrics`);
    expect(after.status).toBe(200);
    const moved = (series: string) => sample(after.text, series) - sample(workerBefore, series);
    expect(moved('opsbench_queue_processing_seconds_count{queue="run-execute",outcome="completed"}')).toBe(1);
    expect(moved('opsbench_queue_wait_seconds_count{queue="run-execute"}')).toBe(1);
    for (const phase of ["claim", "provision", "baseline", "load", "analyze", "teardown", "run"])
      expect(moved(`opsbench_run_phase_seconds_count{phase="${phase}",outcome="ok"}`), phase).toBe(1);
    expect(moved('opsbench_load_lock_wait_seconds_count{outcome="acquired"}')).toBe(1);
    expect(moved('opsbench_ingest_rows_total{source="worker"}')).toBeGreaterThan(0);
    expect((await scrape(`${worker}/health`)).status).toBe(200);
    // The container's healthcheck: the plain-JavaScript probe on the worker's health socket (spawned without
    // blocking: the worker answering it runs in this process).
    const probe = (at: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ["packages/jobs/health-probe.mjs", "worker"], {
          env: { ...process.env, OPSBENCH_WORKER_HEALTH_SOCKET: at },
        });
        let stderr = "";
        child.stderr.on("data", (d) => (stderr += d));
        child.on("close", (code) => resolve({ code, stderr }));
      });
    const healthy = await probe(socket);
    expect(healthy.code, healthy.stderr).toBe(0);
    const missing = await probe(`${socket}.none`);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("worker does not answer");

    // The run's job and its phases reached the OTLP stand-in as spans.
    await expect
      .poll(() => spans, { timeout: 15_000 })
      .toEqual(expect.arrayContaining(["job run-execute", "run claim", "run load", "run teardown"]));
    otlp.close();

    // Without OPSBENCH_METRICS_TOKEN only a loopback client that did not come through a proxy may read.
    for (const url of [`${web}/metrics`, `${worker}/metrics`]) {
      const proxied = await scrape(url, { "x-forwarded-for": "203.0.113.9" });
      expect(proxied.status, url).toBe(403);
      expect(proxied.text).toContain("OPSBENCH_METRICS_TOKEN");
    }
  });
});
