import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baselineNotReachedFlag, readFlags } from "@opsbench/core";
import { addRunFlags } from "@opsbench/db";
import { localService, ProviderError, type ProviderContext } from "@opsbench/providers";
import { checkBaseline } from "../src/baseline-check";
import { openTestStack, taewaTarget } from "../../../tests/helpers";

let stack: Awaited<ReturnType<typeof openTestStack>>;
beforeAll(async () => {
  stack = await openTestStack();
});
afterAll(() => stack.close());

/** A target that scales down only after `ms` (or never): its reset polls until then, as a real one would. */
const slowReset = (ms: number) => async (signal: AbortSignal) => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (signal.aborted) throw new ProviderError("aborted while waiting for scale-down");
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("baseline check", () => {
  it("a target that does not get back to baseline within the wait: not reached (the run goes ahead, flagged), and its reset is told to stop", async () => {
    let stoppedBySignal = false;
    const outcome = await checkBaseline(
      async (signal) => {
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        stoppedBySignal = true;
        throw new ProviderError("still 3 replicas, minimum 1");
      },
      { waitMs: 300, signal: new AbortController().signal },
    );
    expect(outcome.reached).toBe(false);
    expect(outcome.waitedMs).toBeGreaterThanOrEqual(300);
    expect(outcome.reached === false && outcome.reason).toMatch(/not back at baseline within 0\.3 s/);
    expect(stoppedBySignal).toBe(true);
    // A reset that ignores its signal is not waited for either.
    expect((await checkBaseline(() => new Promise<void>(() => {}), { waitMs: 100, signal: new AbortController().signal })).reached).toBe(
      false,
    );
  });

  it("a target back within the wait: reached", async () => {
    expect((await checkBaseline(slowReset(50), { waitMs: 10_000, signal: new AbortController().signal })).reached).toBe(true);
    expect((await checkBaseline(slowReset(10_000), { waitMs: 200, signal: new AbortController().signal })).reached).toBe(false);
  });

  it("a reset that says it could not get there (a ProviderError) is not reached either; an aborted run or a bug fails", async () => {
    const said = await checkBaseline(
      async () => {
        throw new ProviderError("did not get back to its minimum of 1 replica(s) within 25000 ms");
      },
      { waitMs: 10_000, signal: new AbortController().signal },
    );
    expect(said).toMatchObject({ reached: false, reason: "did not get back to its minimum of 1 replica(s) within 25000 ms" });
    const run = new AbortController();
    setTimeout(() => run.abort(new Error("run aborted")), 50);
    await expect(checkBaseline(slowReset(10_000), { waitMs: 10_000, signal: run.signal })).rejects.toThrow(/run aborted/);
    await expect(
      checkBaseline(
        async () => {
          throw new TypeError("x is undefined");
        },
        { waitMs: 10_000, signal: new AbortController().signal },
      ),
    ).rejects.toThrow(TypeError);
  });

  it("with the real local-service provider: a fresh deployment is at its baseline", async () => {
    const ctx: ProviderContext = {
      runId: "baseline-test",
      signal: new AbortController().signal,
      log: () => {},
      benchappsDir: path.resolve(import.meta.dirname, "../../../benchapps"),
      saveState: async () => {},
    };
    const spec = localService.spec.parse(taewaTarget("baseline", { replicas: 2 }).spec);
    const dep = await localService.deploy(spec, ctx);
    try {
      const outcome = await checkBaseline((signal) => localService.reset(dep, { ...ctx, signal }), { waitMs: 30_000, signal: ctx.signal });
      expect(outcome).toMatchObject({ reached: true });
    } finally {
      await localService.teardown(dep, ctx);
    }
  });

  it("the flag lands on the run, once per code", async () => {
    await stack.scope.targets.put(taewaTarget("baseline-flag"));
    const target = await stack.scope.targets.byName("baseline-flag");
    const run = await stack.db.run.create({
      data: { workspaceId: stack.scope.workspaceId, targetId: target.id, targetSpec: {}, workloadSpec: {} },
    });
    await addRunFlags(stack.db, run.id, [baselineNotReachedFlag(120)]);
    await addRunFlags(stack.db, run.id, [{ code: "dropped-iterations", message: "3 dropped" }, baselineNotReachedFlag(60)]);
    const flags = readFlags((await stack.db.run.findUniqueOrThrow({ where: { id: run.id } })).flags);
    expect(flags.map((f) => f.code)).toEqual(["dropped-iterations", "baseline-not-reached"]);
    expect(flags[1]!.message).toMatch(/after 60 s; the run went ahead/);
  });
});
