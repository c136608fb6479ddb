// Which generator may load a run's target (src/segments/generator.ts hostProblem): a loopback target only from the
// run's own host, a remote one only through a runner that routes. The whole path with hosts of our own:
// tests/generators-hosts.test.ts. And what a generator hands its runner: the run's admitted, pinned address.
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import type { RunnerK6Request } from "@opsbench/jobs";
import { runStore, segmentStore } from "@opsbench/db";
import { afterAll, describe, expect, it } from "vitest";
import { openTestStack, testRedisUrl } from "../../../tests/helpers";
import { twoGeneratorWorkload } from "../../../tests/generators-support";
import { createLogger } from "../src/logger";
import { executeSegment, hostProblem } from "../src/segments/generator";
import { type K6Settings, RunnerClient } from "../src/runner-client";

const k6 = (remoteLoad: boolean) => ({ remoteLoad }) as K6Settings;
const job = (host?: string) => ({ segment: 1, count: 2, ...(host ? { host } : {}) });

describe("a generator's host and the run's target", () => {
  it("a loopback target is refused on another host, naming both hosts and the target", () => {
    for (const url of ["http://127.0.0.1:8080", "http://127.0.0.2:9000/", "http://localhost:8080", "http://[::1]:8080"]) {
      const problem = hostProblem(job("run-host"), url, { host: "gen-b", k6: k6(true) });
      expect(problem, url).toContain("load generator segment 2/2 refused on host gen-b: the target");
      expect(problem, url).toContain("is on the loopback of host run-host (the run's)");
    }
  });

  it("a loopback target is loaded on the run's own host, and by a job of an older worker that names no host", () => {
    expect(hostProblem(job("run-host"), "http://127.0.0.1:8080", { host: "run-host", k6: k6(false) })).toBeNull();
    expect(hostProblem(job(), "http://127.0.0.1:8080", { host: "gen-b", k6: k6(false) })).toBeNull();
  });

  it("a remote target needs a runner that routes, on any host", () => {
    expect(hostProblem(job("run-host"), "http://10.231.5.2:8080", { host: "gen-b", k6: k6(false) })).toMatch(
      /^load generator segment 2\/2 refused on host gen-b: its runner cannot route k6's sandbox to the remote target 10\.231\.5\.2/,
    );
    expect(hostProblem(job("run-host"), "http://10.231.5.2:8080", { host: "gen-b", k6: k6(true) })).toBeNull();
    expect(hostProblem(job("run-host"), "https://bench.example.com", { host: "run-host", k6: k6(true) })).toBeNull();
  });
});

describe("the address a generator loads", () => {
  const opened: { close(): Promise<unknown> }[] = [];
  afterAll(async () => {
    for (const o of opened) await o.close();
  });

  it("is the one the run's worker admitted and pinned (the run's loadAdmission), not a fresh resolution", async () => {
    const stack = await openTestStack({ worker: false });
    const redis = new Redis(testRedisUrl());
    opened.push(stack, { close: () => redis.quit() });
    // A name no resolver here answers (.invalid), pinned by the run's admission to an address of its own: a generator
    // that resolved the name itself, or sent no pinned address, would not load this address.
    const name = "bench-pinned.opsbench.invalid";
    const pinned = "10.231.77.9";
    await stack.scope.targets.put({ name: "pinned-endpoint", kind: "endpoint", spec: { url: `http://${name}:8080` } });
    await stack.scope.workloads.put(twoGeneratorWorkload("pinned-two", 2));
    const { id: runId } = await stack.scope.runs.create({ targetName: "pinned-endpoint", workloadName: "pinned-two" });
    const store = runStore(stack.db, runId);
    await store.setLoadAdmission({
      how: "allowlist",
      host: name,
      port: 8080,
      address: pinned,
      addresses: [pinned, "10.231.77.10"],
      detail: "test",
      checkedAt: new Date().toISOString(),
    });
    await store.startStep("PROVISION");
    await store.finishStep("PROVISION", { status: "SUCCEEDED", detail: { endpoint: `http://${name}:8080` } });
    await segmentStore(stack.db, runId).create(2);

    // The runner, faked: it records what the generator asks for and starts nothing.
    const asked: RunnerK6Request[] = [];
    const runner = new RunnerClient(path.join(os.tmpdir(), "no-runner-here.sock"));
    runner.runK6 = async (request: RunnerK6Request) => {
      asked.push(request);
      throw new Error("the fake runner starts nothing");
    };
    runner.control = async () => null;
    const k6: K6Settings = { runner, version: "test", deadline: { graceSeconds: 1, maxSeconds: 60 }, blockHosts: [], remoteLoad: true };
    await executeSegment(
      { runId, segment: 1, count: 2, host: "run-host" },
      { db: stack.db, redis, redisUrl: testRedisUrl(), log: createLogger("silent"), k6, host: "gen-b" },
      new AbortController().signal,
    );

    expect(asked).toHaveLength(1);
    expect(asked[0]!.pinnedAddress).toBe(pinned);
    // The name stays in the URL (Host, SNI); only the address is pinned.
    expect(asked[0]!.env.OPSBENCH_BASE_URL).toBe(`http://${name}:8080`);
    expect(asked[0]!.segment).toEqual({ index: 1, count: 2 });
  });
});
