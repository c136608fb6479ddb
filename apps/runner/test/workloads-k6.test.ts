// Every workload kind and the request-mix features, checked by the real k6:
// `k6 inspect` reads back the options we compiled, and short runs against a
// recording HTTP server on loopback show what actually went over the wire.
import { spawnSync } from "node:child_process";
import http from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  compileK6Options,
  compileK6Script,
  durationSeconds,
  workloadSpec,
  type GeneratedWorkloadSpec,
  type K6OutputLine,
} from "@opsbench/core";
import { loadEnv } from "../src/env";
import { runK6 } from "../src/k6-process";
import { shopSession } from "../../../packages/core/test/fixtures/shop-session";

const k6 = loadEnv({}).OPSBENCH_ENGINE;
const workDir = mkdtempSync(path.join(os.tmpdir(), "opsbench-workloads-"));

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
let seen: Seen[] = [];
let connections = 0;
let baseUrl = "";
const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (d) => (body += d));
  req.on("end", () => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    const signin = /^\/signin\/(\d+)$/.exec(req.url!);
    res.writeHead(200, { "content-type": signin ? "application/json" : "text/plain" });
    res.end(signin ? JSON.stringify({ token: `tok-${signin[1]}` }) : "ok");
  });
});
server.on("connection", () => connections++);

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(workDir, { recursive: true, force: true });
});

function inspect(script: string) {
  const dir = mkdtempSync(path.join(workDir, "inspect-"));
  writeFileSync(path.join(dir, "script.js"), script);
  const r = spawnSync(k6, ["inspect", "script.js"], { cwd: dir, encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** Runs the workload with opsbench's output; returns the output lines, k6's summary and what the server saw. */
async function run(input: unknown) {
  seen = [];
  connections = 0;
  const spec = workloadSpec.parse(input);
  const lines: K6OutputLine[] = [];
  const result = await runK6({
    binary: k6,
    workDir: mkdtempSync(path.join(workDir, "run-")),
    script: compileK6Script(spec),
    env: { OPSBENCH_BASE_URL: baseUrl },
    signal: new AbortController().signal,
    onLine: (l) => lines.push(l),
  });
  expect(result.exitCode, result.outputTail).toBe(0);
  expect(result.malformedLines).toBe(0);
  const summary = result.summary as { metrics: Record<string, Record<string, number>> };
  const requests = lines.reduce((a, l) => a + (l.t === "http" ? l.n : 0), 0);
  // Every request k6 made is in opsbench's histograms and reached the server.
  expect(requests).toBe(summary.metrics.http_reqs!.count);
  expect(seen.length).toBe(requests);
  return { lines, summary, seen: [...seen], connections };
}

const requests = [{ name: "home", path: "/" }];
const KINDS = {
  "ramping-vus": {
    kind: "ramping-vus",
    startVUs: 1,
    stages: [
      { duration: "1s", target: 3 },
      { duration: "0s", target: 1 },
      { duration: "500ms", target: 1 },
    ],
    gracefulRampDown: "1s",
    requests,
  },
  "constant-vus": { kind: "constant-vus", vus: 2, duration: "1500ms", requests },
  "shared-iterations": { kind: "shared-iterations", vus: 3, iterations: 50, requests },
  "constant-arrival-rate": {
    kind: "constant-arrival-rate",
    rate: 20,
    timeUnit: "1s",
    duration: "2s",
    preAllocatedVUs: 2,
    maxVUs: 4,
    requests,
  },
  "ramping-arrival-rate": {
    kind: "ramping-arrival-rate",
    startRate: 10,
    timeUnit: "1s",
    stages: [
      { duration: "1s", target: 10 },
      { duration: "0s", target: 30 },
      { duration: "1s", target: 30 },
    ],
    preAllocatedVUs: 2,
    maxVUs: 5,
    requests,
  },
} as const;

/** Durations in seconds, as k6 normalises their text ("1s" -> "1s", "1500ms" -> "1.5s"). */
function normalise(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalise);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalise(x)]));
  if (typeof v === "string" && /^(\d+(\.\d+)?(ms|s|m|h))+$/.test(v)) return durationSeconds(v);
  return v;
}

describe("workload kinds in the real k6", () => {
  it.each(Object.keys(KINDS))("%s: k6 inspect reads back exactly the scenario we compiled", (kind) => {
    const spec = workloadSpec.parse(KINDS[kind as keyof typeof KINDS]) as GeneratedWorkloadSpec;
    const scenario = inspect(compileK6Script(spec)).scenarios.main;
    const ours = (compileK6Options(spec).scenarios as { main: Record<string, unknown> }).main;
    for (const [key, value] of Object.entries(ours)) expect(normalise(scenario[key]), key).toEqual(normalise(value));
  });

  it("ramping-vus and constant-vus run against a server on loopback", async () => {
    for (const kind of ["ramping-vus", "constant-vus"] as const) {
      const r = await run(KINDS[kind]);
      expect(r.seen.length).toBeGreaterThan(10);
      expect(r.summary.metrics.vus_max!.value).toBe(kind === "ramping-vus" ? 3 : 2);
    }
  });

  it("shared-iterations runs exactly N requests", async () => {
    const r = await run(KINDS["shared-iterations"]);
    expect(r.seen.length).toBe(50);
    expect(r.summary.metrics.iterations!.count).toBe(50);
    expect(r.lines.filter((l) => l.t === "load").reduce((a, l) => a + (l.t === "load" ? l.iterations : 0), 0)).toBe(50);
  });

  it("arrival-rate kinds start iterations at the planned rate (started + dropped = planned)", async () => {
    const constant = await run(KINDS["constant-arrival-rate"]);
    const planned = (r: Awaited<ReturnType<typeof run>>) =>
      r.summary.metrics.iterations!.count + (r.summary.metrics.dropped_iterations?.count ?? 0);
    expect(planned(constant)).toBeGreaterThanOrEqual(39);
    expect(planned(constant)).toBeLessThanOrEqual(41);
    const ramping = await run(KINDS["ramping-arrival-rate"]);
    expect(planned(ramping)).toBeGreaterThanOrEqual(38);
    expect(planned(ramping)).toBeLessThanOrEqual(41);
  });
});

describe("request mixes in the real k6", () => {
  it("setup signs every user in, templates fill paths, headers and bodies, weights and Zipf shape the traffic, checks are counted", async () => {
    const r = await run({
      kind: "constant-vus",
      vus: 2,
      duration: "2s",
      pools: {
        user: { dimensions: { user: 5 } },
        product: { rows: Array.from({ length: 20 }, (_, i) => ({ id: `p-${i + 1}` })), choice: { zipf: 1.25 } },
      },
      ...shopSession({
        signin: { path: "/signin/{{user.user}}", body: '{"user":{{user.user}}}' },
        view: "/products/{{product.id}}?n={{randomInt 1 9}}",
        buy: { path: "/users/{{user.user}}/orders", body: '{"product":"{{product.id}}","pad":"{{payload 100}}"}' },
      }),
    });
    const signins = r.seen.filter((s) => s.url.startsWith("/signin/"));
    expect(signins.map((s) => s.url).sort()).toEqual(["/signin/1", "/signin/2", "/signin/3", "/signin/4", "/signin/5"]);
    expect(signins.map((s) => JSON.parse(s.body).user).sort()).toEqual([1, 2, 3, 4, 5]);

    const views = r.seen.filter((s) => s.url.startsWith("/products/"));
    const buys = r.seen.filter((s) => s.url.startsWith("/users/"));
    expect(views.length + buys.length + signins.length).toBe(r.seen.length);
    expect(buys.length).toBeGreaterThan(0);
    expect(views.length / (views.length + buys.length)).toBeGreaterThan(0.8);
    for (const v of views) expect(v.url).toMatch(/^\/products\/p-(\d+)\?n=[1-9]$/);
    // Each order carries the token its user got at sign-in, and a body filled from the same iteration's row.
    for (const b of buys) {
      const user = /^\/users\/(\d)\/orders$/.exec(b.url)![1];
      expect(b.headers.authorization).toBe(`Bearer tok-${user}`);
      const body = JSON.parse(b.body);
      expect(body.product).toMatch(/^p-\d+$/);
      expect(body.pad).toHaveLength(100);
    }
    // Zipf(1.25) over 20 products: the first takes ~37%, the last ~0.9%.
    const count = (id: string) => views.filter((v) => v.url.startsWith(`/products/${id}?`)).length;
    expect(count("p-1") / views.length).toBeGreaterThan(0.25);
    expect(count("p-1")).toBeGreaterThan(5 * count("p-20"));
    // The status check of "view" is counted per second by opsbench's output.
    const checks = r.lines.filter((l) => l.t === "metric" && l.kind === "check");
    expect(checks.every((l) => l.t === "metric" && l.name === "view status 200")).toBe(true);
    expect(checks.reduce((a, l) => a + (l.t === "metric" ? l.pass : 0), 0)).toBe(views.length);
    // Setup requests are labelled as such in the results.
    expect(r.lines.some((l) => l.t === "http" && l.name === "setup: signin")).toBe(true);
  });

  it("connections: one per VU by default, a new one every K iterations with reconnectEvery, one per request without reuse", async () => {
    const base = { kind: "shared-iterations", vus: 1, iterations: 40, requests };
    expect((await run(base)).connections).toBe(1);
    const reconnecting = await run({ ...base, reconnectEvery: 10 });
    // Iterations 10, 20, 30 and 40 close their connection: 4 connections in all.
    expect(reconnecting.connections).toBe(4);
    expect(reconnecting.seen.filter((s) => s.headers.connection === "close")).toHaveLength(4);
    expect((await run({ ...base, noConnectionReuse: true })).connections).toBe(40);
  });

  it("payload-size bodies arrive with exactly their size; a sequence sends every request each iteration", async () => {
    const r = await run({
      kind: "shared-iterations",
      vus: 1,
      iterations: 3,
      requests: [
        { name: "empty", method: "POST", path: "/a", body: "{{payload 0}}" },
        { name: "big", method: "POST", path: "/b", body: "{{payload 8192}}", headers: { "Content-Type": "application/octet-stream" } },
      ],
    });
    expect(r.seen.map((s) => [s.url, Buffer.byteLength(s.body)])).toEqual([
      ["/a", 0],
      ["/b", 8192],
      ["/a", 0],
      ["/b", 8192],
      ["/a", 0],
      ["/b", 8192],
    ]);
  });
});
