// local-function with real processes: the proxy, instances of Taewa started on
// demand, cold starts, the queue, scale to zero, billing, and a clean teardown.
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { localFunction, ProviderError, type Deployment, type InfraPoint, type LocalFunctionState } from "../src";
import { proxyStats } from "../src/local-function";
import { alive, get, testContext, until } from "./provider-context";

const made: Array<{ dep: Deployment<LocalFunctionState>; ctx: ReturnType<typeof testContext>["ctx"] }> = [];
afterEach(async () => {
  for (const m of made.splice(0)) await localFunction.teardown(m.dep, m.ctx).catch(() => {});
});

async function deploy(spec: Record<string, unknown>) {
  const t = testContext();
  const dep = await localFunction.deploy(localFunction.spec.parse({ app: "cpu-loop/node-http", ...spec }), t.ctx);
  made.push({ dep, ctx: t.ctx });
  return { dep, ...t };
}

describe("local-function (real processes)", () => {
  it("cold-starts on the first request and times it, scales to zero after the idle timeout, and tears down every process", async () => {
    const { dep, ctx } = await deploy({ concurrency: 2, maxInstances: 2, idleTimeoutMs: 800, startTimeoutMs: 10_000 });
    const before = await proxyStats(dep.state);
    expect(before.instances).toBe(0); // deploy's probe instance was retired
    await localFunction.reset(dep, ctx); // already cold: returns

    const res = await get(`${dep.endpoint}/?n=2000`);
    expect(res.status).toBe(200);
    const after = await proxyStats(dep.state);
    expect(after.coldStarts - before.coldStarts).toBe(1);
    const cold = after.coldStartLog.at(-1)!;
    expect(cold.ms).toBeGreaterThan(0);
    expect(after.instances).toBe(1);
    const pid = after.pids[0]!;
    expect(alive(pid)).toBe(true);

    // A warm instance serves the next request without a cold start.
    expect((await get(`${dep.endpoint}/?n=2000`)).status).toBe(200);
    expect((await proxyStats(dep.state)).coldStarts).toBe(after.coldStarts);

    // Idle for 800 ms -> stopped: scale to zero, and its process is gone.
    const zero = await until("scale to zero", async () =>
      (await proxyStats(dep.state)).instances === 0 ? await proxyStats(dep.state) : null,
    );
    expect(zero.stoppedIdle).toBeGreaterThanOrEqual(1);
    await until("the idle instance's process to exit", () => !alive(pid));
    await localFunction.reset(dep, ctx);

    // Teardown: the proxy and every instance it ever ran are gone.
    expect((await get(`${dep.endpoint}/?n=2000`)).status).toBe(200);
    const seen = [dep.state.proxy!.pid, ...(await proxyStats(dep.state)).pids];
    expect(seen.filter(alive)).toHaveLength(2);
    await localFunction.teardown(dep, ctx);
    made.length = 0;
    expect(seen.filter(alive)).toEqual([]);
  });

  it("bills instance time (Cloud Run) in 100 ms slots on the clock, never more than the instance's wall time", async () => {
    const { dep } = await deploy({ platform: "cloud-run", concurrency: 10, maxInstances: 1, idleTimeoutMs: 60_000 });
    expect(dep.state.settings!.billing.mode).toBe("per-instance");
    expect((await get(`${dep.endpoint}/?n=10`)).status).toBe(200); // cold start out of the way
    const before = await proxyStats(dep.state);
    const started = Date.now();
    // Many short requests one after another: many tiny busy periods inside few 100 ms slots.
    for (let i = 0; i < 200; i++) expect((await get(`${dep.endpoint}/?n=10`)).status).toBe(200);
    const wallMs = Date.now() - started;
    const s = await proxyStats(dep.state);
    const billed = s.billedInstanceMs - before.billedInstanceMs;
    expect(billed % 100).toBe(0);
    expect(billed).toBeGreaterThan(0);
    // Rounding each busy period up on its own would bill about 200 x 100 ms.
    expect(billed).toBeLessThanOrEqual(Math.ceil(wallMs / 100) * 100 + 100);
  });

  it("queues at the concurrency limit, and bills each request rounded up to the platform's granularity", async () => {
    const { dep, ctx } = await deploy({
      platform: "openwhisk",
      concurrency: 1,
      maxInstances: 1,
      queueTimeoutMs: 20_000,
      idleTimeoutMs: 60_000,
    });
    expect(dep.state.settings!.billing).toEqual({ mode: "per-request", granularityMs: 100, minimumMs: 100 });
    const before = await proxyStats(dep.state);
    const observed: InfraPoint[] = [];
    const stop = new AbortController();
    const watching = (async () => {
      for await (const p of localFunction.observe(dep, { signal: stop.signal, intervalMs: 250 }, ctx)) observed.push(p);
    })();

    // The most work a request may ask for (n up to 10^7): each holds the instance long enough for the others to
    // find it busy, even when the test's process is descheduled between sending them.
    const results = await Promise.all(Array.from({ length: 4 }, () => get(`${dep.endpoint}/?n=10000000`)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const s = await proxyStats(dep.state);
    // One instance, one request at a time: the first waits for the cold start, and those that arrive while the
    // instance is taken queue. Sent together, that is the other three; a busy machine (seen once: 1 of them) may
    // deliver one after the instance came free, which then need not queue. Never a second instance.
    const queued = s.queuedTotal - before.queuedTotal;
    expect(s.instances).toBe(1);
    expect(queued).toBeGreaterThanOrEqual(1);
    expect(queued).toBeLessThanOrEqual(3);
    expect(s.queueWaitMsMax).toBeGreaterThan(0);
    expect(s.queueTimeouts).toBe(0);

    const requests = s.responses - before.responses;
    const billed = s.billedRequestMs - before.billedRequestMs;
    const duration = s.durationMs - before.durationMs;
    expect(requests).toBe(4);
    expect(billed % 100).toBe(0);
    expect(billed).toBeGreaterThanOrEqual(Math.max(duration, 100 * requests));
    expect(billed).toBeLessThan(duration + 100 * requests);

    await new Promise((r) => setTimeout(r, 600));
    stop.abort();
    await watching;
    const details = observed.map((p) => p.detail as Record<string, number | number[]>);
    expect(details.reduce((a, d) => a + (d.coldStarts as number), 0)).toBe(1);
    expect(details.flatMap((d) => d.coldStartMs as number[])).toHaveLength(1);
    expect(details.reduce((a, d) => a + (d.queuedNew as number), 0)).toBe(queued);
    expect(details.reduce((a, d) => a + (d.billedMs as number), 0)).toBe(billed);
    expect(Math.max(...observed.map((p) => p.replicas))).toBe(1);

    // A client that gives up while queued leaves the queue (and is not forwarded later).
    const long = get(`${dep.endpoint}/?n=10000000`);
    await new Promise((r) => setTimeout(r, 20));
    const gaveUp = new Promise<void>((resolve) => {
      const req = http.get(`${dep.endpoint}/?n=10`, { agent: false });
      req.on("error", () => resolve());
      setTimeout(() => req.destroy(), 30);
    });
    await gaveUp;
    expect((await long).status).toBe(200);
    const left = await proxyStats(dep.state);
    expect(left.abandoned).toBe(1);
    expect(left.queued).toBe(0);
    expect(left.responses - s.responses).toBe(1);
  });

  it("answers 429 with Retry-After when a request waits longer than the queue timeout", async () => {
    const { dep } = await deploy({ concurrency: 1, maxInstances: 1, queueTimeoutMs: 50, idleTimeoutMs: 60_000 });
    const results = await Promise.all(Array.from({ length: 4 }, () => get(`${dep.endpoint}/?n=5000000`)));
    const statuses = results.map((r) => r.status).sort();
    // The first request gets the (cold) instance; the others wait 50 ms and are turned away.
    expect(statuses).toEqual([200, 429, 429, 429]);
    const refused = results.find((r) => r.status === 429)!;
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.body).toMatch(/no instance available within 50 ms/);
    expect((await proxyStats(dep.state)).queueTimeouts).toBe(3);
  });

  it("throttles at once like Lambda (no queue), bills in 1 ms steps, and enforces or records per-instance limits", async () => {
    const { dep, ctx, events } = await deploy({ platform: "lambda", maxInstances: 1, resources: { cpuLimit: 0.5, memoryLimitMb: 200 } });
    const results = await Promise.all(Array.from({ length: 3 }, () => get(`${dep.endpoint}/?n=3000000`)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 429, 429]);
    const s = await proxyStats(dep.state);
    expect(s.queueRejected).toBe(2);
    expect(s.billedRequestMs).toBeGreaterThanOrEqual(s.durationMs);
    expect(s.billedRequestMs).toBeLessThan(s.durationMs + s.responses);

    const limits = dep.state.limits!;
    if (limits.enforced) {
      expect(limits.mechanism).toMatch(/cgroup v[12]/);
      expect(dep.state.cgroups.length).toBe(limits.mechanism === "cgroup v1" ? 2 : 1); // v1: a cpu and a memory hierarchy
      expect(dep.state.cgroups.every(existsSync)).toBe(true);
      // The warm instance joined its cgroup(s) before it started.
      const pid = s.pids[0]!;
      const membership = readFileSync(`/proc/${pid}/cgroup`, "utf8");
      for (const dir of dep.state.cgroups) expect(membership).toContain(dir.split("/").slice(-2).join("/"));
      expect(s.unlimitedStarts).toBe(0);
      expect(events.some((e) => /limits enforced/.test(e.message))).toBe(true);
    } else {
      expect(limits.reason).toBeTruthy();
      expect(events.some((e) => e.level === "warn" && /NOT enforced/.test(e.message))).toBe(true);
    }
    const cgroups = [...dep.state.cgroups];
    await localFunction.teardown(dep, ctx);
    made.length = 0;
    expect(cgroups.filter(existsSync)).toEqual([]);
  });

  it("refuses a multi-service app, and a reset that cannot reach zero says so", async () => {
    const t = testContext();
    await expect(localFunction.deploy(localFunction.spec.parse({ app: "msd/poll" }), t.ctx)).rejects.toThrow(
      /single-service benchapps; "msd\/poll" lists services/,
    );
    const { dep, ctx } = await deploy({ concurrency: 1, maxInstances: 1, idleTimeoutMs: 500, queueTimeoutMs: 60_000 });
    // A light request every 100 ms: the instance never stays idle for its 500 ms, so it never stops.
    let stop = false;
    const traffic = (async () => {
      while (!stop) {
        await get(`${dep.endpoint}/?n=10`).catch(() => null);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await until("an instance", async () => (await proxyStats(dep.state)).instances > 0);
    const err = await localFunction.reset(dep, ctx).then(
      () => null,
      (e: unknown) => e,
    );
    stop = true;
    await traffic;
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as Error).message).toMatch(/did not scale to zero within 3500 ms \(1 instance\(s\) live/);
    await localFunction.teardown(dep, ctx);
    made.length = 0;
  });
});
