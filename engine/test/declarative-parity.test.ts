// The declarative runner (engine/internal/declarative) against the k6 script opsbench generates for the same
// workload: both run on opsbench-engine against the same local server, and must send the same requests (names,
// methods, paths, headers, bodies), make the same checks pass and fail, use setup's captures the same way, and end
// the same way. compileK6Script is the specification; compileDeclarativeWorkload is what the engine runs natively.
import { existsSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import {
  compileDeclarativeWorkload,
  compileK6Script,
  type GeneratedWorkloadSpec,
  type K6OutputLine,
  payloadSweep,
  type WorkloadSpec,
  workloadSpec,
} from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EngineRun, runEngine, type TestServer, testServer } from "./engine-harness";

interface Seen {
  method: string;
  path: string;
  auth: string;
  vu: string;
  body: string;
  close: boolean;
  conn: number;
}

let server: TestServer;
let seen: Seen[] = [];
const sockets = new WeakMap<object, number>();
let nextSocket = 0;

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  if (!sockets.has(req.socket)) sockets.set(req.socket, nextSocket++);
  const target = req.url ?? "/";
  seen.push({
    method: req.method ?? "",
    path: target,
    auth: req.headers.authorization ?? "",
    vu: String(req.headers["x-vu"] ?? ""),
    body: Buffer.concat(chunks).toString(),
    close: /close/i.test(req.headers.connection ?? ""),
    conn: sockets.get(req.socket)!,
  });
  const parts = target.split("?")[0]!.split("/").filter(Boolean);
  const json = (v: unknown) => {
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify(v));
  };
  if (parts[0] === "signin") return json({ token: `t-${parts[1]}`, user: { id: Number(parts[1]) } });
  if (parts[0] === "admin") return json({ jwt: "J" });
  if (parts[0] === "status") {
    res.statusCode = Number(parts[1]);
    res.end();
    return;
  }
  res.end("ok");
}

beforeAll(async () => {
  server = await testServer(handle);
});
afterAll(() => server.close());

interface Side {
  run: EngineRun;
  seen: Seen[];
}

/** Runs the workload as the generated k6 script, then as the declarative JSON; each run sees only its own requests. */
async function bothWays(spec: WorkloadSpec): Promise<{ js: Side; decl: Side }> {
  const generated = spec as GeneratedWorkloadSpec;
  const env = { OPSBENCH_BASE_URL: `${server.url}/` };
  seen = [];
  const js = await runEngine(compileK6Script(spec), { env, json: true });
  const jsSeen = seen;
  seen = [];
  const decl = await runEngine(compileDeclarativeWorkload(generated), { env, json: true, file: "workload.json" });
  const declSeen = seen;
  seen = [];
  return { js: { run: js, seen: jsSeen }, decl: { run: decl, seen: declSeen } };
}

/** Requests per name (k6's name tag) and how many failed, from the opsbench output's http lines. */
function httpByName(lines: K6OutputLine[]): Record<string, { n: number; fail: number }> {
  const out: Record<string, { n: number; fail: number }> = {};
  for (const l of lines) {
    if (l.t !== "http") continue;
    const e = out[l.name] ?? { n: 0, fail: 0 };
    out[l.name] = e;
    e.n += l.n;
    e.fail += l.fail;
  }
  return out;
}

/** Checks per name: how many ran and passed. */
function checksByName(lines: K6OutputLine[]): Record<string, { n: number; pass: number }> {
  const out: Record<string, { n: number; pass: number }> = {};
  for (const l of lines) {
    if (l.t !== "metric" || l.kind !== "check") continue;
    const e = out[l.name] ?? { n: 0, pass: 0 };
    out[l.name] = e;
    e.n += l.n;
    e.pass += l.pass;
  }
  return out;
}

/** How often each combination of tags a metric's samples carried occurs (with the value), from the engine's `--out json`. */
function tagCombinations(run: EngineRun, metric: string): Record<string, number> {
  const file = path.join(run.dir, "samples.json");
  const out: Record<string, number> = {};
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.includes(`"${metric}"`)) continue;
    const p = JSON.parse(line) as { type: string; metric: string; data: { tags?: Record<string, string>; value: number } };
    if (p.type !== "Point" || p.metric !== metric) continue;
    const tags = Object.entries(p.data.tags ?? {}).sort(([a], [b]) => a.localeCompare(b));
    const key = `${JSON.stringify(tags)} = ${p.data.value}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

const iterations = (lines: K6OutputLine[]) => lines.reduce((sum, l) => sum + (l.t === "load" ? l.iterations : 0), 0);

const count = (list: string[]) => {
  const out: Record<string, number> = {};
  for (const k of list) out[k] = (out[k] ?? 0) + 1;
  return out;
};

describe("declarative workloads run as their generated k6 scripts do", () => {
  it("a preset (study 003's payload sweep): the same requests, bodies of exactly the size", async () => {
    const spec = payloadSweep({ sizes: [1024], iterations: 30, vus: 2, repetitions: 1 })[0]!.spec;
    const { js, decl } = await bothWays(spec);
    for (const side of [js, decl]) {
      expect(side.run.code, side.run.stderr).toBe(0);
      expect(count(side.seen.map((s) => `${s.method} ${s.path} ${s.body.length}`))).toEqual({ "POST / 1024": 30 });
      expect(httpByName(side.run.lines)).toEqual({ "payload-1024b": { n: 30, fail: 0 } });
      expect(iterations(side.run.lines)).toBe(30);
    }
  });

  it("a weighted mix with a Zipf pool and templates: the same names, shares and key distribution", async () => {
    const rows = Array.from({ length: 20 }, (_, i) => ({ id: `p${i}` }));
    const spec = workloadSpec.parse({
      kind: "shared-iterations",
      vus: 2,
      iterations: 600,
      mix: "weighted",
      pools: { product: { rows, choice: { zipf: 1.25 } } },
      requests: [
        { name: "view", path: "/products/{{product.id}}?u={{randomInt 1 5}}", weight: 3, headers: { "X-VU": "{{vu}}" } },
        {
          name: "buy",
          method: "POST",
          path: "/orders",
          weight: 1,
          headers: { "Content-Type": "application/json" },
          body: '{"product":"{{product.id}}","ref":"{{uuid}}","s":"{{randomString 6}}"}',
        },
      ],
    });
    const { js, decl } = await bothWays(spec);
    const zipfTop = 1 / Array.from({ length: 20 }, (_, i) => (i + 1) ** -1.25).reduce((a, b) => a + b, 0);
    // A share of 600 independent draws is off its probability by less than five of its standard deviations but about
    // once in 1.7 million runs (3.4 of them, the bound before, failed a fresh clone's run once); a mix that ignored
    // the weights (views 0.5 instead of 0.75) or the Zipf shape (p0 0.05 instead of 0.37) is off by far more.
    const within = (share: number, p: number) => expect(Math.abs(share - p)).toBeLessThan(5 * Math.sqrt((p * (1 - p)) / 600));
    for (const side of [js, decl]) {
      expect(side.run.code, side.run.stderr).toBe(0);
      expect(side.seen).toHaveLength(600);
      const views = side.seen.filter((s) => s.method === "GET");
      const buys = side.seen.filter((s) => s.method === "POST");
      for (const v of views) expect(v.path).toMatch(/^\/products\/p\d+\?u=[1-5]$/);
      expect(new Set(views.map((v) => v.vu))).toEqual(new Set(["1", "2"]));
      for (const b of buys) {
        expect(b.path).toBe("/orders");
        expect(JSON.parse(b.body)).toEqual({
          product: expect.stringMatching(/^p\d+$/),
          ref: expect.stringMatching(/^[0-9a-f-]{36}$/),
          s: expect.any(String),
        });
      }
      within(views.length / 600, 0.75);
      const products = side.seen.map((s) => (s.method === "GET" ? s.path.split("/")[2]!.split("?")[0] : JSON.parse(s.body).product));
      within(products.filter((p) => p === "p0").length / 600, zipfTop);
      const byName = httpByName(side.run.lines);
      expect(Object.keys(byName).sort()).toEqual(["buy", "view"]);
      expect(byName.view!.n + byName.buy!.n).toBe(600);
    }
  });

  it("setup with captures and forEach: the same setup requests, and their captures in the same later requests", async () => {
    const spec = workloadSpec.parse({
      kind: "shared-iterations",
      vus: 2,
      iterations: 9,
      pools: { user: { dimensions: { user: 3 }, choice: "sequential" } },
      setup: [
        { name: "signin", method: "POST", path: "/signin/{{user.user}}", forEach: "user", capture: { token: "token", uid: "user.id" } },
        { name: "admin", method: "POST", path: "/admin", body: '{"for":"{{env.OPSBENCH_BASE_URL}}"}', capture: { jwt: "jwt" } },
      ],
      requests: [
        {
          name: "me",
          path: "/me/{{user.user}}?uid={{user.uid}}&admin={{setup.jwt}}",
          headers: { Authorization: "Bearer {{user.token}}" },
        },
      ],
    });
    const { js, decl } = await bothWays(spec);
    const summary = (side: Side) => count(side.seen.map((s) => `${s.method} ${s.path} ${s.auth} ${s.body}`));
    expect(js.run.code, js.run.stderr).toBe(0);
    expect(decl.run.code, decl.run.stderr).toBe(0);
    expect(summary(decl)).toEqual(summary(js));
    expect(summary(js)).toEqual({
      "POST /signin/1  ": 1,
      "POST /signin/2  ": 1,
      "POST /signin/3  ": 1,
      [`POST /admin  {"for":"${server.url}/"}`]: 1,
      "GET /me/1?uid=1&admin=J Bearer t-1 ": 3,
      "GET /me/2?uid=2&admin=J Bearer t-2 ": 3,
      "GET /me/3?uid=3&admin=J Bearer t-3 ": 3,
    });
    expect(httpByName(decl.run.lines)).toEqual(httpByName(js.run.lines));
    expect(httpByName(js.run.lines)).toEqual({
      "setup: signin": { n: 3, fail: 0 },
      "setup: admin": { n: 1, fail: 0 },
      me: { n: 9, fail: 0 },
    });
    // The same tags on every request (name, url, method, status, group "::setup" in setup, scenario, expected_response...).
    const jsTags = tagCombinations(js.run, "http_reqs");
    expect(Object.keys(jsTags).some((k) => k.includes('["group","::setup"]'))).toBe(true);
    expect(tagCombinations(decl.run, "http_reqs")).toEqual(jsTags);
  });

  it("expectStatus: the same checks pass and fail, the same requests count as failed, thresholds end both the same", async () => {
    const spec = workloadSpec.parse({
      kind: "shared-iterations",
      vus: 2,
      iterations: 10,
      requests: [
        { name: "ok", path: "/ok", expectStatus: [200] },
        { name: "bad", path: "/status/503", expectStatus: [200, 201] },
        { name: "gone", path: "/status/410", expectStatus: [410] },
      ],
      thresholds: { checks: ["rate>0.9"] },
    });
    const { js, decl } = await bothWays(spec);
    for (const side of [js, decl]) {
      expect(checksByName(side.run.lines)).toEqual({
        "ok status 200": { n: 10, pass: 10 },
        "bad status 200|201": { n: 10, pass: 0 },
        "gone status 410": { n: 10, pass: 10 },
      });
      expect(httpByName(side.run.lines)).toEqual({ ok: { n: 10, fail: 0 }, bad: { n: 10, fail: 10 }, gone: { n: 10, fail: 0 } });
    }
    expect(tagCombinations(decl.run, "checks")).toEqual(tagCombinations(js.run, "checks"));
    expect(tagCombinations(decl.run, "http_req_failed")).toEqual(tagCombinations(js.run, "http_req_failed"));
    expect(js.run.code).toBe(99); // a threshold failed
    expect(decl.run.code).toBe(js.run.code);
  });

  it("a failing setup request fails the test the same way, naming it", async () => {
    const spec = workloadSpec.parse({
      kind: "shared-iterations",
      vus: 1,
      iterations: 5,
      pools: { user: { dimensions: { user: 2 } } },
      setup: [{ name: "signin", method: "POST", path: "/status/500", forEach: "user" }],
      requests: [{ name: "home", path: "/" }],
    });
    const { js, decl } = await bothWays(spec);
    expect(js.run.code).not.toBe(0);
    expect(decl.run.code).toBe(js.run.code);
    for (const side of [js, decl]) {
      // The log line is logfmt: the message's quotes come escaped.
      expect((side.run.stdout + side.run.stderr).replaceAll('\\"', '"')).toContain(
        'setup request "signin" (user row 0) failed: status 500',
      );
      expect(side.seen.map((s) => `${s.method} ${s.path}`)).toEqual(["POST /status/500"]);
    }
  });

  it("noConnectionReuse: a new connection for every request, think time between iterations", async () => {
    const spec = workloadSpec.parse({
      kind: "shared-iterations",
      vus: 1,
      iterations: 4,
      noConnectionReuse: true,
      thinkTime: "50ms",
      requests: [{ name: "a", path: "/a" }],
    });
    const { js, decl } = await bothWays(spec);
    for (const side of [js, decl]) {
      expect(side.run.code, side.run.stderr).toBe(0);
      expect(side.seen).toHaveLength(4);
      expect(new Set(side.seen.map((s) => s.conn)).size).toBe(4);
      expect(iterations(side.run.lines)).toBe(4);
      const durations = tagCombinations(side.run, "iteration_duration");
      for (const key of Object.keys(durations)) expect(Number(key.split(" = ")[1])).toBeGreaterThanOrEqual(50);
    }
  });

  it("reconnectEvery: the last request of every K-th iteration says Connection: close, and the next one reconnects", async () => {
    const spec = workloadSpec.parse({
      kind: "shared-iterations",
      vus: 1,
      iterations: 6,
      reconnectEvery: 2,
      requests: [
        { name: "a", path: "/a" },
        { name: "b", path: "/b" },
      ],
    });
    const { js, decl } = await bothWays(spec);
    for (const side of [js, decl]) {
      expect(side.run.code, side.run.stderr).toBe(0);
      expect(side.seen.map((s) => `${s.path}${s.close ? " close" : ""}`)).toEqual([
        "/a",
        "/b",
        "/a",
        "/b close",
        "/a",
        "/b",
        "/a",
        "/b close",
        "/a",
        "/b",
        "/a",
        "/b close",
      ]);
      expect(new Set(side.seen.map((s) => s.conn)).size).toBe(3);
    }
  });
});
