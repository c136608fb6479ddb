// Issue 10: the worker stops k6 at the planned duration plus a grace period.
// A run whose k6 hangs (its setup never returns) is stopped at its deadline and
// marked FAILED with the reason, and the next run, waiting on the same load lock,
// then runs. The pipeline runs in this process with a short grace; its runs are
// created without a queue job, and no worker runs beside it (its reconciler would
// enqueue and execute the QUEUED run while the test's lock holds it back).
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workloadSpec } from "@opsbench/core";
import { loadRunView } from "@opsbench/db";
import { openTestStack, testRedisUrl } from "../../../tests/helpers";
import { loadEnv } from "../src/env";
import { startTestRunner } from "../../../tests/k6-runner";
import { LoadLock } from "../src/load-lock";
import { createLogger } from "../src/logger";
import { executeRun, type PipelineDeps } from "../src/run-pipeline";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let redis: Redis;
let runner: Awaited<ReturnType<typeof startTestRunner>>;
const workDir = mkdtempSync(path.join(os.tmpdir(), "opsbench-deadline-"));
beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  redis = new Redis(testRedisUrl());
  runner = await startTestRunner();
});
afterAll(async () => {
  await redis.quit();
  await runner.close();
  await stack.close();
  rmSync(workDir, { recursive: true, force: true });
});

const GRACE_SECONDS = 3;

// k6 plans 1 s (no graceful stop); setup() spins for ten minutes, which its own setupTimeout allows.
const HANGING = `
export const options = {
  setupTimeout: "10m",
  scenarios: { main: { executor: "constant-vus", vus: 1, duration: "1s", gracefulStop: "0s" } },
};
export function setup() { const until = Date.now() + 600000; while (Date.now() < until) {} }
export default function () {}
`;

describe("the hard stop", () => {
  it("stops a hanging k6 at its planned duration plus the grace, marks the run FAILED with the reason, and takes the next run", async () => {
    const env = loadEnv({});
    const deps: PipelineDeps = {
      db: stack.db,
      redis,
      log: createLogger("silent"),
      k6: runner.k6({ graceSeconds: GRACE_SECONDS, maxSeconds: 600 }),
      benchappsDir: env.OPSBENCH_BENCHAPPS_DIR,
      workDir,
    };
    await stack.scope.targets.put({
      name: "deadline-echo",
      kind: "local-service",
      spec: { app: "echo/node", replicas: 1, env: {}, startTimeoutMs: 10_000 },
    });
    await stack.scope.workloads.put({ name: "hangs", spec: workloadSpec.parse({ kind: "script", source: HANGING }) });
    await stack.scope.workloads.put({
      name: "after-the-hang",
      spec: workloadSpec.parse({ kind: "shared-iterations", vus: 1, iterations: 20, requests: [{ name: "echo", path: "/?input=x" }] }),
    });
    const hung = await stack.scope.runs.create({ targetName: "deadline-echo", workloadName: "hangs" });
    const next = await stack.scope.runs.create({ targetName: "deadline-echo", workloadName: "after-the-hang" });

    // One load test at a time, as in the worker: the next run waits for the lock the hung one holds.
    const lock = new LoadLock();
    const signal = new AbortController().signal;
    const started = Date.now();
    await Promise.all([lock.run(() => executeRun(hung.id, deps, signal)), lock.run(() => executeRun(next.id, deps, signal))]);

    const hungView = await loadRunView(stack.db, hung.id);
    expect(hungView.status).toBe("FAILED");
    expect(hungView.error).toMatch(
      /^k6 was stopped at its deadline: it ran past its planned duration plus the grace period \(4 s in all\)/,
    );
    const loadSeconds = (Date.parse(hungView.loadFinishedAt!) - Date.parse(hungView.loadStartedAt!)) / 1000;
    // Stopped at 1 s + 3 s (plus k6 inspect and the stop itself), not after setup's ten minutes.
    expect(loadSeconds).toBeGreaterThanOrEqual(1 + GRACE_SECONDS);
    expect(loadSeconds).toBeLessThan(1 + GRACE_SECONDS + 10);
    expect(hungView.steps.find((s) => s.name === "LOAD")?.status).toBe("FAILED");
    expect(hungView.steps.find((s) => s.name === "TEARDOWN")?.status).toBe("SUCCEEDED");

    const nextView = await loadRunView(stack.db, next.id);
    expect(nextView.error).toBeNull();
    expect(nextView.status).toBe("SUCCEEDED");
    expect(nextView.summary!.requests).toBe(20);
    expect(Date.parse(nextView.loadStartedAt!)).toBeGreaterThanOrEqual(Date.parse(hungView.finishedAt!));
    expect(Date.now() - started).toBeLessThan(90_000);
  });
});
