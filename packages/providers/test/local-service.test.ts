// local-service with real processes: the load balancer's two modes, the HPA-like
// autoscaler under CPU load, replacement of a dead replica, cgroup limits, and
// placements of a multi-service app (loopback and network namespaces).
import { existsSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  localService,
  ProviderError,
  readManifest,
  planDomains,
  type Deployment,
  type LocalServiceState,
  type ProviderContext,
} from "../src";
import { alive, fixtures, get, testContext, until } from "./provider-context";

const made: Array<{ dep: Deployment<LocalServiceState>; ctx: ProviderContext }> = [];
afterEach(async () => {
  for (const m of made.splice(0)) await localService.teardown(m.dep, m.ctx).catch(() => {});
});

async function deploy(spec: Record<string, unknown>, benchappsDir?: string) {
  const t = testContext(benchappsDir);
  // Fixture apps are not in LOCAL_APPS: the provider takes the spec as the worker hands it over.
  const parsed = benchappsDir
    ? Object.assign(localService.spec.parse({ startTimeoutMs: 10_000, ...spec, app: "cpu-loop/node-http" }), { app: String(spec.app) })
    : localService.spec.parse({ app: "cpu-loop/node-http", ...spec });
  const dep = await localService.deploy(parsed, t.ctx);
  made.push({ dep, ctx: t.ctx });
  return { dep, ...t };
}

const lbStats = (dep: Deployment<LocalServiceState>) =>
  get(`http://127.0.0.1:${dep.state.lb!.adminPort}/stats`).then(
    (r) => JSON.parse(r.body) as { backends: Array<{ id: string; total: number }>; requests: number },
  );

const allPids = (dep: Deployment<LocalServiceState>) => [dep.state.lb!.pid, ...dep.state.replicas.flatMap((r) => r.pids)];

describe("local-service (real processes)", () => {
  it("runs 64 replicas (the local engine's cap, study 001 pinned 50), each served behind the balancer; teardown leaves none", async () => {
    const { dep, ctx } = await deploy({ app: "echo/go", replicas: 64, startTimeoutMs: 60_000 });
    expect(dep.state.replicas).toHaveLength(64);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 64; i++) expect((await get(`${dep.endpoint}/?i=${i}`, agent)).status).toBe(200);
    agent.destroy();
    expect((await lbStats(dep)).backends.filter((b) => b.total > 0)).toHaveLength(64);
    const pids = allPids(dep);
    await localService.teardown(dep, ctx);
    made.splice(0);
    expect(pids.filter(alive)).toEqual([]);
    expect(localService.spec.safeParse({ app: "echo/go", replicas: 65 }).success).toBe(false);
  }, 180_000);

  it("balances per request over a kept-alive connection, or per connection when asked", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const served = async (dep: Deployment<LocalServiceState>) => {
      const before = (await lbStats(dep)).backends.map((b) => b.total); // deploy's own health check went through too
      for (let i = 0; i < 20; i++) expect((await get(`${dep.endpoint}/?n=10`, agent)).status).toBe(200);
      return (await lbStats(dep)).backends.map((b, i) => b.total - before[i]!);
    };
    expect(await served((await deploy({ replicas: 2 })).dep)).toEqual([10, 10]);
    agent.destroy();
    expect((await served((await deploy({ replicas: 2, balancing: "per-connection" })).dep)).sort()).toEqual([0, 1]); // one connection, one replica
    agent.destroy();
  });

  it("scales out under CPU load with the HPA rule, in after the stabilization window; reset() is back at min; teardown leaves nothing", async () => {
    // A request of a tenth of a core: the rule is judged, not the machine. Even a replica starved to a tenth of a core
    // by other work on the machine is above the 50% target, while an idle one (a few % of a core) is far below it.
    const { dep, ctx, events } = await deploy({
      minReplicas: 1,
      maxReplicas: 3,
      resources: { cpuRequest: 0.1 },
      autoscaler: { targetCpuPercent: 50, syncPeriodMs: 500, scaleDownStabilizationMs: 1500 },
    });
    await localService.reset(dep, ctx);
    expect(dep.state.replicas).toHaveLength(1);
    const first = dep.state.replicas[0]!.pids[0]!;

    // Three clients in a loop of CPU-heavy requests (~30 ms each) until the autoscaler reacts.
    let stop = false;
    const agent = new http.Agent({ keepAlive: true });
    const load = Promise.all(
      Array.from({ length: 3 }, async () => {
        while (!stop) expect((await get(`${dep.endpoint}/?n=2000000`, agent)).status).toBe(200);
      }),
    );
    const out = await until("a scale-out", async () => ((await lbStats(dep)).backends.length >= 2 ? await lbStats(dep) : null), 20_000);
    const grown = allPids(dep);
    stop = true;
    await load;
    agent.destroy();
    expect(out.backends.length).toBeGreaterThanOrEqual(2);
    const up = events.find((e) => /^autoscaler: 1 -> [23] replicas \(CPU \d+% of request, target 50%\)$/.test(e.message));
    expect(up, JSON.stringify(events)).toBeTruthy();

    // Idle now: after the 1.5 s window the recommendation falls to 1.
    await until("a scale-in", async () => ((await lbStats(dep)).backends.length === 1 ? true : null), 20_000);
    expect(events.some((e) => /^autoscaler: [23] -> 1 replicas/.test(e.message))).toBe(true);
    await localService.reset(dep, ctx);
    expect(dep.state.replicas.map((r) => r.pids[0])).toEqual([first]); // the oldest stays, as a ReplicaSet keeps it
    expect(grown.filter((p) => p !== first && p !== dep.state.lb!.pid).filter(alive)).toEqual([]);

    await localService.teardown(dep, ctx);
    made.length = 0;
    expect(grown.filter(alive)).toEqual([]);
  });

  it("replaces a replica that dies, and records it", async () => {
    const { dep, events } = await deploy({ replicas: 2 });
    const victim = dep.state.replicas[1]!.pids[0]!;
    process.kill(victim, "SIGKILL");
    await until(
      "a replacement",
      () =>
        dep.state.replicas.length === 2 &&
        !dep.state.replicas.some((r) => r.pids.includes(victim)) &&
        (dep.state.replicas.every((r) => r.pids.every(alive)) as boolean),
      15_000,
    );
    await until("two backends again", async () => ((await lbStats(dep)).backends.length === 2 ? true : null));
    expect(events.some((e) => e.level === "warn" && /replica r1 exited unexpectedly \(SIGKILL\); replacing it/.test(e.message))).toBe(true);
    for (let i = 0; i < 6; i++) expect((await get(`${dep.endpoint}/?n=10`)).status).toBe(200);
  });

  it("puts each replica in a cgroup with its CPU and memory limits where the OS allows, else records why", async () => {
    const { dep, ctx, events } = await deploy({ replicas: 1, resources: { cpuLimit: 0.5, memoryLimitMb: 200 } });
    const limits = dep.state.limits!;
    const cgroups = dep.state.replicas[0]!.cgroups;
    if (limits.enforced) {
      expect(limits.mechanism).toMatch(/^cgroup v[12]$/);
      const pid = dep.state.replicas[0]!.pids[0]!;
      const membership = readFileSync(`/proc/${pid}/cgroup`, "utf8");
      for (const dir of cgroups) expect(membership).toContain(dir.split("/").slice(-2).join("/"));
      const cpu = cgroups.find((d) => existsSync(path.join(d, "cpu.max")) || existsSync(path.join(d, "cpu.cfs_quota_us")))!;
      const quota = existsSync(path.join(cpu, "cpu.max"))
        ? readFileSync(path.join(cpu, "cpu.max"), "utf8").split(" ")[0]
        : readFileSync(path.join(cpu, "cpu.cfs_quota_us"), "utf8").trim();
      expect(quota).toBe("50000"); // 0.5 of a 100 ms period
      expect(events.some((e) => /limits enforced with cgroup/.test(e.message))).toBe(true);
    } else {
      expect(limits.reason).toBeTruthy();
      expect(events.some((e) => e.level === "warn" && /NOT enforced/.test(e.message))).toBe(true);
    }
    expect((await get(`${dep.endpoint}/?n=10`)).status).toBe(200);
    await localService.teardown(dep, ctx);
    made.length = 0;
    expect(cgroups.filter(existsSync)).toEqual([]);
  });

  it("places a multi-service app co-located, tiered or isolated (also in network namespaces where permitted), and each answers", async () => {
    const timings: string[] = [];
    const app = "two-service";
    const cases = [
      { placement: "co-located", network: "loopback", processes: 1 },
      { placement: "tiered", network: "loopback", processes: 2 },
      { placement: "isolated", network: "loopback", processes: 3 },
      { placement: "isolated", network: "namespaces", processes: 3 },
    ] as const;
    for (const c of cases) {
      const { dep, ctx, events } = await deploy({ app, replicas: 1, placement: c.placement, network: c.network }, fixtures);
      expect(dep.state.replicas[0]!.pids).toHaveLength(c.processes);
      const agent = new http.Agent({ keepAlive: true });
      const res = await get(`${dep.endpoint}/?size=32`, agent);
      expect(res.status).toBe(200);
      const body = JSON.parse(res.body) as { front: number; placement: string; back: Array<{ pid: number; payload: string }> };
      expect(body.placement).toBe(c.placement);
      expect(body.back).toHaveLength(2);
      expect(body.back.every((b) => b.payload.length === 32)).toBe(true);
      const backPids = new Set(body.back.map((b) => b.pid));
      if (c.placement === "co-located") expect([...backPids]).toEqual([body.front]);
      else expect(backPids.has(body.front)).toBe(false);
      if (c.placement === "isolated") expect(backPids.size).toBe(2);
      if (c.network === "namespaces") {
        if (dep.state.network) expect(dep.state.replicas[0]!.endpoints[0]!.host).toMatch(/^10\.2\d\d\.0\.\d+$/);
        else expect(events.some((e) => /network namespaces could not be used/.test(e.message))).toBe(true);
      }
      // A tiny measurement for the report (no assertion: the machine is shared).
      const n = 200;
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await get(`${dep.endpoint}/?size=32`, agent);
      timings.push(
        `${c.placement}/${dep.state.network ? "namespaces" : "loopback"}: ${((performance.now() - t0) / n).toFixed(2)} ms per request`,
      );
      agent.destroy();
      const pids = allPids(dep);
      const namespaces = dep.state.network?.namespaces ?? [];
      await localService.teardown(dep, ctx);
      made.length = 0;
      expect(pids.filter(alive)).toEqual([]);
      for (const ns of namespaces) expect(existsSync(`/run/netns/${ns}`)).toBe(false);
    }
    console.log(`placement timings (two-service fixture, sequential keep-alive requests): ${timings.join("; ")}`);
  });

  it("runs study 003's msd/poll co-located and isolated, both answering a 1 KiB call", async () => {
    const timings: string[] = [];
    for (const placement of ["co-located", "isolated"] as const) {
      const { dep, ctx } = await deploy({ app: "msd/poll", replicas: 1, placement });
      expect(dep.state.replicas[0]!.pids).toHaveLength(placement === "co-located" ? 1 : 2);
      const agent = new http.Agent({ keepAlive: true });
      const res = await get(`${dep.endpoint}/call?size=1024`, agent);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ size: 1024 });
      const n = 200;
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await get(`${dep.endpoint}/call?size=1024`, agent);
      timings.push(`${placement}: ${((performance.now() - t0) / n).toFixed(2)} ms per call`);
      agent.destroy();
      const pids = allPids(dep);
      await localService.teardown(dep, ctx);
      made.length = 0;
      expect(pids.filter(alive)).toEqual([]);
    }
    console.log(`msd/poll timings (1 KiB, sequential keep-alive calls through the balancer): ${timings.join("; ")}`);
  });

  it("refuses a tiered placement without tiers and a broken manifest, naming what is wrong", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-manifest-"));
    mkdirSync(path.join(dir, "no-tiers"));
    writeFileSync(
      path.join(dir, "no-tiers", "benchapp.json"),
      JSON.stringify({ command: ["node", "x.js"], entry: "a", services: { a: { healthPath: "/h" }, b: { healthPath: "/h" } } }),
    );
    expect(() => planDomains(readManifest(dir, "no-tiers"), "tiered")).toThrow(/declares no "tiers"/);
    expect(planDomains(readManifest(dir, "no-tiers"), "isolated").map((d) => d.serves.map((s) => s.service))).toEqual([["a"], ["b"]]);
    mkdirSync(path.join(dir, "bad"));
    writeFileSync(
      path.join(dir, "bad", "benchapp.json"),
      JSON.stringify({
        command: ["node"],
        entry: "a",
        services: { a: { healthPath: "/h" }, b: { healthPath: "/h" } },
        tiers: [["a"], ["a"]],
      }),
    );
    expect(() => readManifest(dir, "bad")).toThrow(ProviderError);
    expect(() => readManifest(dir, "bad")).toThrow(/tiers: must hold every service exactly once \(missing: b; unknown: -; twice: a\)/);
    await expect(deploy({ app: "no-tiers", replicas: 1, placement: "tiered" }, dir)).rejects.toThrow(/cannot be placed tiered/);
  });
});
