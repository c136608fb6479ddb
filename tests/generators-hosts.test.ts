// Issue 21, "many generators, one target": a run split over two load generators on two hosts of our own (network
// namespaces, each with its own runner and a load-only worker inside) loads one remote target (a third namespace)
// through each generator's own routed sandbox. The merged result is the sum of both: the request count exactly (both
// k6 summaries, and what the target itself counted from each generator's address), the percentiles within 1% of both
// raw outputs together (p50/p90/p95/p99). Each generator host's load lock holds: while it is taken there, that host's segment waits.
// A loopback target of the run's host is refused by generators on other hosts, with the reason, before any load.
// The run's worker executes in this process (it takes no segments), as the run's host.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadAllowedHostsSetting } from "@opsbench/core";
import { loadRunView, segmentStore } from "@opsbench/db";
import { createLoadQueue, type LoadQueue, queuePrefix, queueWorkers } from "@opsbench/jobs";
import { loadEnv } from "../apps/worker/src/env";
import { LoadLock } from "../apps/worker/src/load-lock";
import { createLogger } from "../apps/worker/src/logger";
import { executeRun, type PipelineDeps } from "../apps/worker/src/run-pipeline";
import { makeGeneratorHost, type GeneratorHost, routeBack } from "./generator-hosts";
import { openTestStack, testDatabaseUrl, testRedisUrl, testSecretKey } from "./helpers";
import { startTestRunner } from "./k6-runner";
import { durations, expectMergedPercentiles, k6Requests, twoGeneratorWorkload } from "./generators-support";
import { makeRemoteHost, type RemoteHost } from "./remote-hosts";

const run = promisify(execFile);
/** A segment's worker is "<host id>:<pid>". */
const hostOf = (worker: string | null) => (worker ? worker.slice(0, worker.lastIndexOf(":")) : null);
const TARGET_PORT = 8080;
const RUN_HOST = "generators-hosts-run-host";

// The target counts what it answers, by the address it came from (each generator's, behind its host's masquerade).
const COUNTING = `
const http = require("node:http");
const from = {};
http.createServer((req, res) => {
  if (req.url === "/count") { res.end(JSON.stringify(from)); return; }
  const a = req.socket.remoteAddress.replace(/^::ffff:/, "");
  from[a] = (from[a] ?? 0) + 1;
  res.end("Hello, input was: opsbench");
}).listen(Number(process.env.PORT), "0.0.0.0");
`;

let stack: Awaited<ReturnType<typeof openTestStack>>;
let redis: Redis;
let loadQueue: LoadQueue;
let runner: Awaited<ReturnType<typeof startTestRunner>>;
let target: RemoteHost;
const hosts: GeneratorHost[] = [];
const workDir = mkdtempSync(path.join(os.tmpdir(), "opsbench-generators-hosts-"));
let deps: PipelineDeps;

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  redis = new Redis(testRedisUrl());
  loadQueue = createLoadQueue(testRedisUrl());
  runner = await startTestRunner();
  target = await makeRemoteHost();
  await target.serve(TARGET_PORT, COUNTING);
  await routeBack(target);
  for (let i = 0; i < 2; i++) {
    const host = await makeGeneratorHost({ databaseUrl: testDatabaseUrl(), redisUrl: testRedisUrl() });
    hosts.push(host);
    host.startWorker({
      core: i % os.cpus().length,
      env: { OPSBENCH_SECRET_KEY: testSecretKey(), OPSBENCH_K6_KEEP_SAMPLES: "1" },
    });
  }
  const until = Date.now() + 120_000;
  while ((await queueWorkers(loadQueue)).length < 2) {
    if (Date.now() > until) throw new Error("the generator hosts' workers did not take the load queue within 120 s");
    await new Promise((r) => setTimeout(r, 300));
  }
  const env = loadEnv({});
  deps = {
    db: stack.db,
    redis,
    log: createLogger("warn"),
    k6: { ...runner.k6(), remoteLoad: true },
    benchappsDir: env.OPSBENCH_BENCHAPPS_DIR,
    workDir,
    loadHosts: loadAllowedHostsSetting.parse(`127.0.0.1:1024-65535,${target.address}:${TARGET_PORT}`),
    segments: { queue: loadQueue, redis, redisUrl: testRedisUrl(), readyDeadlineMs: 120_000, host: RUN_HOST },
  };
  await stack.scope.workloads.put(twoGeneratorWorkload("two-hosts", 6));
}, 400_000);

afterAll(async () => {
  for (const h of hosts) await h.remove();
  await target?.remove();
  await loadQueue?.close();
  await redis?.quit();
  await runner?.close();
  await stack?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe("one target, generators on two hosts", () => {
  it("a remote target: each host loads it through its own routed sandbox under its own load lock; the result is the sum of both", async () => {
    const [first, second] = hosts as [GeneratorHost, GeneratorHost];
    // Two hosts, two host ids (the runners' default: their namespaces), neither the run's.
    expect(first.runner.health.hostId).not.toBe(second.runner.health.hostId);
    expect(first.runner.health.routedEgress).toBe(true);

    await stack.scope.targets.put({ name: "remote-count", kind: "endpoint", spec: { url: `http://${target.address}:${TARGET_PORT}` } });
    const created = await stack.scope.runs.create({ targetName: "remote-count", workloadName: "two-hosts" });
    // Another load holds the first host: its segment waits for it, the run waits for its segment.
    const firstLock = new LoadLock({ redis, prefix: queuePrefix(testRedisUrl()), host: first.runner.health.hostId });
    const release = await firstLock.acquire();
    const running = executeRun(created.id, deps, new AbortController().signal);
    const segments = segmentStore(stack.db, created.id);
    const onFirst = (w: string | null) => hostOf(w) === first.runner.health.hostId;
    const until = Date.now() + 120_000;
    for (;;) {
      const rows = await segments.list();
      if (rows.some((s) => onFirst(s.worker)) && rows.some((s) => s.status === "READY" && !onFirst(s.worker))) break;
      if (Date.now() > until)
        throw new Error(`the segments did not start on both hosts: ${JSON.stringify(rows.map((r) => [r.status, r.worker]))}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 3000));
    // Held elsewhere, the first host's segment has not started k6 (not READY), and no load has begun.
    const held = await segments.list();
    expect(held.find((s) => onFirst(s.worker))!.status).toBe("STARTING");
    expect(await stack.db.resultSecond.count({ where: { runId: created.id } })).toBe(0);
    await release();
    await running;

    const view = await loadRunView(stack.db, created.id);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.flags.map((f) => f.code)).not.toContain("unsandboxed-load");
    expect(view.events.some((e) => e.message.includes(`on host ${first.runner.health.hostId} waits for that host's load lock`))).toBe(true);
    const rows = await segments.list();
    expect(rows.map((s) => s.status)).toEqual(["FINISHED", "FINISHED"]);
    // One segment on each host.
    expect(rows.map((s) => hostOf(s.worker)).sort()).toEqual(hosts.map((h) => h.runner.health.hostId).sort());
    const counts = rows.map((s) => k6Requests(s.k6Summary));
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(view.summary!.requests).toBe(counts[0]! + counts[1]!);
    expect(view.summary!.load!.generators!.map((g) => g.requests)).toEqual(counts);

    // The target saw each generator host's requests from that host's own address: each loaded it through its own
    // sandbox and route, and their counts are the segments' exactly.
    const seen = (await (await fetch(`http://${target.address}:${TARGET_PORT}/count`)).json()) as Record<string, number>;
    const addressOf = (hostId: string) => {
      const h = hosts.find((x) => x.runner.health.hostId === hostId)!;
      return h.hostAddress.replace(/\d+$/, (n) => String(Number(n) + 1));
    };
    const bySource = Object.fromEntries(rows.map((s) => [addressOf(hostOf(s.worker)!), k6Requests(s.k6Summary)]));
    expect(seen).toEqual(bySource);

    // The histograms merge: percentiles within 1% of both generators' raw samples together (each kept on its host's runner).
    const all = new Float64Array(
      (
        await Promise.all(
          rows.map((s) => {
            const h = hosts.find((x) => x.runner.health.hostId === hostOf(s.worker))!;
            return durations(path.join(h.runner.workDir, "k6-samples", `${created.id}-segment-${s.index}.json`));
          }),
        )
      ).flat(),
    ).sort();
    const percentiles = expectMergedPercentiles(all, view.summary!);
    console.info(
      `two generator hosts: ${view.summary!.requests} requests = ${counts.join(" + ")} (target counted ${JSON.stringify(seen)}), ${percentiles}`,
    );
  });

  it("a loopback target of the run's host: generators on other hosts refuse their segments before any load, and the run fails saying why", async () => {
    await stack.scope.targets.put({
      name: "loopback-echo",
      kind: "local-service",
      spec: { app: "echo/node", replicas: 1, env: {}, startTimeoutMs: 30_000 },
    });
    const created = await stack.scope.runs.create({ targetName: "loopback-echo", workloadName: "two-hosts" });
    await executeRun(created.id, deps, new AbortController().signal);
    const view = await loadRunView(stack.db, created.id);
    expect(view.status).toBe("FAILED");
    expect(view.error).toMatch(
      /load generator segment [12]\/2 refused on host \S+: the target http:\/\/127\.0\.0\.1:\d+ is on the loopback of host/,
    );
    expect(view.error).toContain(
      `is on the loopback of host ${RUN_HOST} (the run's), and a loopback target is loaded only by generators on its own host`,
    );
    expect(view.error).toContain("nothing was loaded");
    // Nothing half-done: no load was measured, the target is torn down, every segment is final.
    expect(view.summary?.requests ?? 0).toBe(0);
    expect(await stack.db.resultSecond.count({ where: { runId: created.id } })).toBe(0);
    expect(view.steps.find((s) => s.name === "TEARDOWN")?.status).toBe("SUCCEEDED");
    const rows = await segmentStore(stack.db, created.id).list();
    expect(rows.every((s) => ["FAILED", "CANCELLED"].includes(s.status))).toBe(true);
    expect(rows.some((s) => s.status === "FAILED" && /refused on host/.test(s.error ?? ""))).toBe(true);
    // No k6 started on either generator host: no load network is left or was made there.
    for (const h of hosts) {
      const { stdout } = await run("ip", ["netns", "exec", h.ns, "nft", "list", "tables", "inet"]);
      expect(stdout).not.toMatch(/obk6/);
    }
  });
});
