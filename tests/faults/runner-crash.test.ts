// Fault injection: the k6 runner SIGKILLed mid-load (real Postgres, Redis, worker, runner, k6).
// The run ends FAILED with the reason, its results so far kept and flagged partial; k6 died
// with the runner, the worker tore the target down, and nothing of the run is left running.
// A runner started again on the same socket removes the network the dead one left, and the
// worker's next run goes through it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRun } from "@opsbench/jobs";
import { restartRunner, useRunner } from "../file-services";
import { openTestStack, shortRamp, taewaTarget, waitForFinal } from "../helpers";
import { expectAllSettled, loadNetworkExists, pidAlive, processesOfRun, recordedPids } from "./fault-kit";

let stack: Awaited<ReturnType<typeof openTestStack>>;
beforeAll(async () => {
  stack = await openTestStack();
  await stack.scope.targets.put(taewaTarget("rc-taewa"));
  await stack.scope.workloads.put(shortRamp("rc-long", { holdSeconds: 18 }));
  await stack.scope.workloads.put(shortRamp("rc-short", { holdSeconds: 3 }));
});
afterAll(async () => {
  await stack.close();
});

describe("runner SIGKILLed mid-load", () => {
  it("the run is FAILED and partial with the reason, nothing of it runs, and a restarted runner takes the next run", async () => {
    const runner = await useRunner();
    expect(runner, "the file's runner was started by this test file").not.toBeNull();
    const run = await startRun(stack.scope, stack.queue, { targetName: "rc-taewa", workloadName: "rc-long" });
    const until = Date.now() + 90_000;
    while ((await stack.db.resultSecond.groupBy({ by: ["ts"], where: { runId: run.id } })).length < 3) {
      if (Date.now() > until) throw new Error("the run wrote no results within 90 s");
      await new Promise((r) => setTimeout(r, 200));
    }
    const pids = await recordedPids(stack.db, run.id);
    expect(pids.k6).not.toBeNull();
    expect(pids.target.every(pidAlive)).toBe(true);
    process.kill(runner!.child.pid!, "SIGKILL");

    const view = await waitForFinal(stack.db, run.id, 60_000);
    expect(view.status).toBe("FAILED");
    expect(view.error).toMatch(/the k6 runner stopped during the load/);
    expect(view.flags.map((f) => f.code)).toContain("partial");
    expect(await stack.db.resultSecond.count({ where: { runId: run.id } })).toBeGreaterThan(0);
    for (const pid of [pids.k6!, ...pids.target]) expect(pidAlive(pid), `pid ${pid}`).toBe(false);
    expect(processesOfRun(run.id)).toEqual([]);

    await restartRunner();
    if (pids.network) expect(loadNetworkExists(pids.network), "the dead runner's network, swept by the next").toBe(false);
    const next = await startRun(stack.scope, stack.queue, { targetName: "rc-taewa", workloadName: "rc-short" });
    const second = await waitForFinal(stack.db, next.id, 90_000);
    expect(second.error).toBeNull();
    expect(second.status).toBe("SUCCEEDED");
    await expectAllSettled(stack.db, [run.id, next.id]);
  });
});
