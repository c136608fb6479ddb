// A stock k6 the admin brings (OPSBENCH_K6_BINARY): the runner runs it in the same sandbox with k6's own
// `--out json=` into a FIFO in its folder, and folds that into the engine's per-second lines. Tested with a stand-in
// (tests/stand-ins/k6-json-replay, built here with `go build`) that replays a recorded k6 JSON output, not with a
// real k6: the run's stored seconds must equal the recording's (requests per second, name and status class, the
// failed ones, check passes, VUs), and the run's limits hold without the engine's plan line (inspect's answer, then
// the VUs seen per second).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type K6OutputLine, workloadSpec } from "@opsbench/core";
import { loadRunView } from "@opsbench/db";
import { openTestStack, testRedisUrl } from "../../../tests/helpers";
import { startTestRunner } from "../../../tests/k6-runner";
import { loadEnv as workerEnv } from "../src/env";
import { createLogger } from "../src/logger";
import { executeRun, type PipelineDeps } from "../src/run-pipeline";
import { runK6 } from "../../runner/src/k6-process";

const standIn = path.resolve(import.meta.dirname, "../../../tests/stand-ins/k6-json-replay");
const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-stock-k6-"));
const binary = path.join(dir, "bin", "k6");

let stack: Awaited<ReturnType<typeof openTestStack>>;
let redis: Redis;
let runner: Awaited<ReturnType<typeof startTestRunner>>;
let target: http.Server;
let baseUrl = "";

beforeAll(async () => {
  const built = spawnSync("go", ["build", "-o", binary, "."], {
    cwd: standIn,
    encoding: "utf8",
    env: { ...process.env, CGO_ENABLED: "0" },
  });
  if (built.status !== 0) throw new Error(`go build of the stand-in failed: ${built.stderr}`);
  target = http.createServer((_req, res) => res.end("ok"));
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  stack = await openTestStack({ worker: false });
  redis = new Redis(testRedisUrl());
  runner = await startTestRunner({ stockK6Binary: binary });
});
afterAll(async () => {
  await runner?.close();
  await redis?.quit();
  await stack?.close();
  await new Promise((r) => target.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** Epoch ms of a k6 time (RFC 3339 with nanoseconds and a zone), read on its own here, not with the code under test. */
function epochMs(time: string): number {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(.*)$/.exec(time)!;
  return Date.parse(`${m[1]}.${(m[2] ?? "").padEnd(3, "0").slice(0, 3)}${m[3]}`);
}

interface Expected {
  /** "<second from the first>|<name>|<class>|<failed>" -> requests */
  http: Record<string, number>;
  /** "<second>|<check>" -> [samples, passes] */
  checks: Record<string, [number, number]>;
  /** second -> the most VUs */
  vus: Record<number, number>;
  requests: number;
}

/** What the recording holds, second by second from its first sample. */
function recorded(): Expected {
  const points = readFileSync(path.join(standIn, "k6-output.json"), "utf8")
    .trim()
    .split("\n")
    .map(
      (l) => JSON.parse(l) as { type: string; metric: string; data: { time: string; value: number; tags: Record<string, string> | null } },
    )
    .filter((l) => l.type === "Point");
  const first = Math.floor(epochMs(points[0]!.data.time) / 1000);
  const out: Expected = { http: {}, checks: {}, vus: {}, requests: 0 };
  for (const p of points) {
    const s = Math.floor(epochMs(p.data.time) / 1000) - first;
    const tags = p.data.tags ?? {};
    if (p.metric === "http_req_duration") {
      const cls = tags.status === "0" ? (tags.error_code === "1050" ? "timeout" : "error") : `${tags.status![0]}xx`;
      const key = `${s}|${tags.name}|${cls}|${tags.expected_response === "false"}`;
      out.http[key] = (out.http[key] ?? 0) + 1;
      out.requests++;
    } else if (p.metric === "checks") {
      const key = `${s}|${tags.check}`;
      const [n, pass] = out.checks[key] ?? [0, 0];
      out.checks[key] = [n + 1, pass + (p.data.value ? 1 : 0)];
    } else if (p.metric === "vus") out.vus[s] = Math.max(out.vus[s] ?? 0, p.data.value);
  }
  return out;
}

/** The same from per-second rows (the runner's lines, or the stored rows), added up per key. */
function folded(
  http: Array<{ s: number; name: string; class: string; n: number; fail: number }>,
  checks: Array<{ s: number; name: string; n: number; pass: number }>,
  load: Array<{ s: number; vus: number }>,
): Expected {
  const first = Math.min(...load.map((l) => l.s), ...http.map((h) => h.s));
  const out: Expected = { http: {}, checks: {}, vus: {}, requests: 0 };
  for (const h of http) {
    // A cell holds only failed or only successful requests.
    expect([0, h.n]).toContain(h.fail);
    const key = `${h.s - first}|${h.name}|${h.class}|${h.fail > 0}`;
    out.http[key] = (out.http[key] ?? 0) + h.n;
    out.requests += h.n;
  }
  for (const c of checks) {
    const key = `${c.s - first}|${c.name}`;
    const [n, pass] = out.checks[key] ?? [0, 0];
    out.checks[key] = [n + c.n, pass + c.pass];
  }
  for (const l of load) out.vus[l.s - first] = Math.max(out.vus[l.s - first] ?? 0, l.vus);
  return out;
}

const fromLines = (lines: K6OutputLine[]) =>
  folded(
    lines.flatMap((l) => (l.t === "http" ? [l] : [])),
    lines.flatMap((l) => (l.t === "metric" && l.kind === "check" ? [l] : [])),
    lines.flatMap((l) => (l.t === "load" ? [l] : [])),
  );

const LIMITS = { maxVUs: 10, maxDurationSeconds: 600, maxArrivalRate: 1000 };

async function runStandIn(env: Record<string, string>, limits = LIMITS) {
  const lines: Array<{ line: K6OutputLine; at: number }> = [];
  const result = await runK6({
    binary,
    stockK6: true,
    workDir: mkdtempSync(path.join(dir, "run-")),
    script: "export default function () {}",
    env: { OPSBENCH_BASE_URL: baseUrl, ...env },
    signal: new AbortController().signal,
    onLine: (line) => lines.push({ line, at: Date.now() }),
    limits,
    deadline: { graceSeconds: 30, maxSeconds: 120 },
  });
  return { result, lines };
}

describe("a stock k6 (OPSBENCH_K6_BINARY), by a stand-in replaying k6's JSON output", () => {
  it("runs sandboxed and folds k6's JSON output into the engine's lines, equal to the recording", async () => {
    const { result, lines } = await runStandIn({});
    expect(result.exitCode, result.outputTail).toBe(0);
    expect(result.unsandboxed).toBeNull();
    expect(result.overLimits).toBeNull();
    expect(result.malformedLines).toBe(0);
    expect((result.summary as { metrics: { http_reqs: { count: number } } }).metrics.http_reqs.count).toBe(21);
    expect(lines[0]!.line.t).toBe("meta");
    expect(lines.at(-1)!.line.t).toBe("end");
    expect(lines.some((l) => l.line.t === "plan")).toBe(false);
    const want = recorded();
    expect(want.requests).toBe(21);
    expect(fromLines(lines.map((l) => l.line))).toEqual(want);
    // k6's clock on the end line: its first sample, its last not counting the VU tick after the test.
    const end = lines.at(-1)!.line as Extract<K6OutputLine, { t: "end" }>;
    expect(end.lastMs! - end.firstMs!).toBeGreaterThan(2800);
    expect(end.lastMs! - end.firstMs!).toBeLessThan(3000);
  });

  it("refuses a run inspect says is over the run's limits, before it starts", async () => {
    const { result, lines } = await runStandIn({}, { ...LIMITS, maxVUs: 1 });
    expect(result.exitCode).toBe(-1);
    expect(result.overLimits).toContain("k6 inspect says the script uses up to 2 VUs; the run's limit maxVUs is 1");
    expect(lines).toEqual([]);
  });

  it("stops a k6 that runs more VUs than inspect said (no plan line from stock k6)", async () => {
    const { result } = await runStandIn({ REPLAY_INSPECT_MAX_VUS: "1" });
    expect(result.overLimits).toBe("k6 ran 2 VUs at once; at most 1 were allowed");
  });

  it("stores a run's seconds as the recording has them, through the worker's pipeline", async () => {
    await stack.scope.targets.put({
      name: "stock-k6-echo",
      kind: "local-service",
      spec: { app: "echo/node", replicas: 1, env: {}, startTimeoutMs: 10_000 },
    });
    await stack.scope.workloads.put({
      name: "stock-k6-script",
      spec: workloadSpec.parse({
        kind: "script",
        source: `import http from "k6/http";\nexport const options = { vus: 2, duration: "3s" };\nexport default function () { http.get(__ENV.OPSBENCH_BASE_URL); }\n`,
      }),
    });
    const run = await stack.scope.runs.create({ targetName: "stock-k6-echo", workloadName: "stock-k6-script" });
    const deps: PipelineDeps = {
      db: stack.db,
      redis,
      log: createLogger("silent"),
      k6: runner.k6({ graceSeconds: 30, maxSeconds: 600 }),
      benchappsDir: workerEnv({}).OPSBENCH_BENCHAPPS_DIR,
      workDir: mkdtempSync(path.join(dir, "worker-")),
    };
    await executeRun(run.id, deps, new AbortController().signal);
    const view = await loadRunView(stack.db, run.id);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.summary!.requests).toBe(21);
    const [http, checks, load] = await Promise.all([
      stack.db.resultSecond.findMany({ where: { runId: run.id } }),
      stack.db.metricSecond.findMany({ where: { runId: run.id, kind: "check" } }),
      stack.db.loadSecond.findMany({ where: { runId: run.id } }),
    ]);
    const s = (ts: Date) => ts.getTime() / 1000;
    expect(
      folded(
        http.map((r) => ({ s: s(r.ts), name: r.name, class: r.class, n: r.requests, fail: r.failures })),
        checks.map((r) => ({ s: s(r.ts), name: r.name, n: r.count, pass: r.passes })),
        load.map((r) => ({ s: s(r.ts), vus: r.vus })),
      ),
    ).toEqual(recorded());
  });
});
