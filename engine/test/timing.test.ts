// The engine's clock: open-model executors start iterations by the clock, never by responses (no coordinated
// omission), and count what no VU could start as dropped; ramping-vus stage boundaries land where they should.
import { afterEach, describe, expect, it } from "vitest";
import { rawDurations, runEngine, sleep, type TestServer, testServer } from "./engine-harness";

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const metric = (run: Awaited<ReturnType<typeof runEngine>>, name: string, field: string) =>
  Number((run.summary?.metrics[name] as Record<string, unknown> | undefined)?.[field] ?? Number.NaN);

const arrivalScript = (maxVUs: number) => `
import http from "k6/http";
export const options = {
  scenarios: {
    open: { executor: "constant-arrival-rate", rate: 1000, timeUnit: "1s", duration: "30s", preAllocatedVUs: 50, maxVUs: ${maxVUs} },
  },
};
export default function () { http.get(__ENV.BASE_URL + "/"); }
`;

describe("engine timing", () => {
  it("constant-arrival-rate 1,000/s for 30 s against a 20 ms server starts 30,000 iterations (+-0.1%)", async () => {
    server = await testServer(async (_req, res) => {
      await sleep(20);
      res.end("ok");
    });
    const run = await runEngine(arrivalScript(200), { env: { BASE_URL: server.url } });
    expect(run.code, run.stderr).toBe(0);
    const iterations = metric(run, "iterations", "count");
    const dropped = metric(run, "dropped_iterations", "count") || 0;
    console.log(`constant-arrival-rate: ${iterations} iterations, ${dropped} dropped`);
    // The schedule is exact: every one of the 30,000 iterations due either started or was counted dropped.
    expect(Math.abs(iterations + dropped - 30_000)).toBeLessThanOrEqual(30);
    // 20 ms answers need ~20 of the 200 VUs, so a quiet machine drops none (the line above prints it); a starved one
    // drops a few while VUs are made late (89 of 30,000 beside four type checks at load 15), as k6 does.
    expect(dropped).toBeLessThanOrEqual(300);
  });

  it("a 2 s stall of the server mid-run shows in the latency of the requests scheduled during it, and what no VU could start is dropped", async () => {
    // From 10 s after the first request to 12 s, every answer waits until the stall ends.
    let first = 0;
    server = await testServer(async (_req, res) => {
      const now = Date.now();
      first ||= now;
      const stallEnd = first + 12_000;
      if (now >= first + 10_000 && now < stallEnd) await sleep(stallEnd - now);
      else await sleep(20);
      res.end("ok");
    });
    const maxVUs = 300;
    const run = await runEngine(arrivalScript(maxVUs), { env: { BASE_URL: server.url }, json: true });
    expect(run.code, run.stderr).toBe(0);
    const iterations = metric(run, "iterations", "count");
    const dropped = metric(run, "dropped_iterations", "count");
    const maxLatency = metric(run, "http_req_duration", "max");
    console.log(`stall: ${iterations} iterations, ${dropped} dropped, max latency ${maxLatency.toFixed(0)} ms`);
    // Every scheduled iteration either started or was dropped.
    expect(Math.abs(iterations + dropped - 30_000)).toBeLessThanOrEqual(30);
    // 2,000 were due in the stall; at most maxVUs could be waiting on it, the rest had no VU.
    expect(dropped).toBeGreaterThanOrEqual(2000 - maxVUs - 100);
    expect(dropped).toBeLessThanOrEqual(2000);
    // Requests kept leaving on schedule as the stall began, on VUs added for them beyond the 50 pre-allocated (VUs are
    // made as needed, so under a busy machine some come later), until the VUs ran out: at least twice the
    // pre-allocated VUs waited most of the stall, never more than maxVUs at once.
    const held = rawDurations(run).filter((ms) => ms >= 1500).length;
    console.log(`stall: ${held} requests waited 1.5 s or more`);
    expect(held).toBeGreaterThanOrEqual(100);
    expect(held).toBeLessThanOrEqual(maxVUs);
    // The requests sent as the stall began waited for all of it.
    expect(maxLatency).toBeGreaterThanOrEqual(1900);
  });

  it("ramping-vus brings VUs in where the stages say, within 100 ms", async () => {
    // Each VU's first request, by the VU's id.
    const firstSeen = new Map<string, number>();
    server = await testServer((req, res) => {
      const vu = new URL(req.url ?? "/", "http://x").searchParams.get("vu") ?? "?";
      if (!firstSeen.has(vu)) firstSeen.set(vu, performance.now());
      res.end("ok");
    });
    // 1 VU from the start, ramping linearly to 11 over 2 s: a VU joins every 200 ms.
    const run = await runEngine(
      `
import http from "k6/http";
import { sleep } from "k6";
export const options = { scenarios: { ramp: { executor: "ramping-vus", startVUs: 1, stages: [{ duration: "2s", target: 11 }, { duration: "1s", target: 11 }], gracefulRampDown: "0s" } } };
export default function () { http.get(__ENV.BASE_URL + "/?vu=" + __VU); sleep(0.01); }
`,
      { env: { BASE_URL: server.url } },
    );
    expect(run.code, run.stderr).toBe(0);
    const times = [...firstSeen.values()].sort((a, b) => a - b);
    expect(times).toHaveLength(11);
    const t0 = times[0]!;
    const offsets = times.map((t) => t - t0);
    console.log(`ramping-vus joins (ms): ${offsets.map((o) => o.toFixed(0)).join(", ")}`);
    for (const [k, o] of offsets.entries())
      expect(Math.abs(o - 200 * k), `VU #${k + 1} joined at ${o.toFixed(0)} ms, due at ${200 * k} ms`).toBeLessThanOrEqual(100);
  });
});
