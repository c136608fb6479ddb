// Study 004's shop on Restate (benchapps/shop-restate), run end to end by the
// in-process worker: the shop's own workload (benchapps/shop/workload.json,
// shortened) loads a local-service target that is restate-server, the shop's
// Restate services and the HTTP facade; the run records the consistency check
// the app's manifest names (read from Restate's storage after the load), and
// teardown leaves no process and no Restate data directory. A second run corrupts
// stock on purpose and must record the check failed, naming the product.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workloadInput, type WorkloadInput } from "@opsbench/core";
import { startRun } from "@opsbench/jobs";
import { openTestStack, waitForFinal } from "../../../tests/helpers";

const benchapps = path.resolve(import.meta.dirname, "../../../benchapps");

let stack: Awaited<ReturnType<typeof openTestStack>>;
beforeAll(async () => {
  stack = await openTestStack();
});
afterAll(() => stack.close());

/** The process group leaders the PROVISION step recorded (load balancer and replicas). */
function groupsOf(detail: unknown): number[] {
  const state = (detail as { state?: { lb?: { pid: number }; replicas?: Array<{ pids: number[] }> } } | null)?.state;
  return [...(state?.lb ? [state.lb.pid] : []), ...(state?.replicas ?? []).flatMap((r) => r.pids)];
}

/** Live processes (not zombies) whose process group is one of `groups`, as "pid command". */
function membersOf(groups: number[]): string[] {
  const out: string[] = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state !== "Z" && groups.includes(Number(pgrp))) out.push(`${e} ${readFileSync(`/proc/${e}/cmdline`, "utf8").replace(/\0/g, " ")}`);
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

const restateDirsOf = (runId: string) => readdirSync(os.tmpdir()).filter((f) => f.startsWith(`shop-restate-${runId}-`));

async function provisioned(runId: string) {
  const row = await stack.db.run.findUniqueOrThrow({ where: { id: runId }, include: { steps: true } });
  return groupsOf(row.steps.find((s) => s.name === "PROVISION")!.detail);
}

describe("shop on Restate (real restate-server, real worker, real k6)", () => {
  it("the shop's checkout workload runs; the consistency check after it passes and is on the run; nothing is left", async () => {
    // Little stock, so a short load both completes and rolls back checkouts.
    await stack.scope.targets.put({
      name: "restate-shop",
      kind: "local-service",
      spec: {
        app: "shop-restate",
        replicas: 1,
        startTimeoutMs: 60_000,
        env: { SHOP_SEED_PRODUCTS: "20", SHOP_SEED_USERS: "20", SHOP_SEED_CARTS: "40", SHOP_SEED_STOCK: "5", SHOP_SEED_CREDITS: "3000" },
      },
    });
    const preset = workloadInput.parse(JSON.parse(readFileSync(path.join(benchapps, "shop/workload.json"), "utf8")));
    await stack.scope.workloads.put({
      name: "restate-shop-checkout",
      spec: {
        ...preset.spec,
        stages: [
          { duration: "2s", target: 4 },
          { duration: "8s", target: 4 },
        ],
        gracefulRampDown: "2s",
      } as WorkloadInput["spec"],
    });
    const run = await startRun(stack.scope, stack.queue, { targetName: "restate-shop", workloadName: "restate-shop-checkout" });
    const view = await waitForFinal(stack.db, run.id, 240_000);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.steps.map((s) => [s.name, s.status])).toEqual([
      ["PROVISION", "SUCCEEDED"],
      ["BASELINE", "SUCCEEDED"],
      ["LOAD", "SUCCEEDED"],
      ["COLLECT", "SUCCEEDED"],
      ["ANALYZE", "SUCCEEDED"],
      ["TEARDOWN", "SUCCEEDED"],
    ]);
    const s = view.summary!;
    expect(s.requests).toBeGreaterThan(20); // a loaded 2-core machine made ~150 in 10 s
    // Checkouts that roll back answer 409 (stock runs out: 20 products of 5), the only failures: no 5xx, no timeout.
    expect(s.byClass["2xx"]).toBeGreaterThan(0);
    expect(s.byClass["4xx"]).toBeGreaterThan(0);
    expect(Object.keys(s.byClass).filter((k) => k !== "2xx" && k !== "4xx")).toEqual([]);
    expect(s.failures).toBe(s.byClass["4xx"] ?? 0);
    // The worker asked the app's consistency check after the load (COLLECT) and the run page shows it.
    expect(s.appChecks).toEqual([expect.objectContaining({ name: "consistency", ok: true, message: "consistent" })]);
    expect(view.events.some((e) => /app check consistency: passed/.test(e.message))).toBe(true);
    console.log(
      `shop-restate run ${run.id}: ${s.requests} requests, ${s.rps.toFixed(1)} req/s, p50 ${s.latencyMs.p50.toFixed(1)} ms, p95 ${s.latencyMs.p95.toFixed(1)} ms, ${s.failures} failures (rolled-back checkouts)`,
    );

    // Teardown stopped the whole group (node, restate-server) and Restate's data went with it.
    const groups = await provisioned(run.id);
    expect(groups.length).toBeGreaterThanOrEqual(1);
    expect(membersOf(groups)).toEqual([]);
    expect(restateDirsOf(run.id)).toEqual([]);
  });

  it("a run that corrupts stock on purpose records the check failed, naming the product", async () => {
    await stack.scope.targets.put({
      name: "restate-shop-corruptible",
      kind: "local-service",
      spec: {
        app: "shop-restate",
        replicas: 1,
        startTimeoutMs: 60_000,
        env: { SHOP_SEED_PRODUCTS: "10", SHOP_SEED_USERS: "5", SHOP_SEED_CARTS: "10", SHOP_ALLOW_CORRUPTION: "1" },
      },
    });
    await stack.scope.workloads.put(
      workloadInput.parse({
        name: "restate-shop-corrupt",
        spec: {
          kind: "shared-iterations",
          vus: 1,
          iterations: 1,
          maxDuration: "30s",
          requests: [
            {
              name: "checkout",
              method: "POST",
              path: "/orders/checkout",
              body: '{"cartId":"random","userId":"random"}',
              headers: { "content-type": "application/json" },
            },
            {
              name: "corrupt",
              method: "POST",
              path: "/admin/corrupt",
              body: '{"productId":"p3","stockDelta":-2}',
              headers: { "content-type": "application/json" },
            },
          ],
        },
      }),
    );
    const run = await startRun(stack.scope, stack.queue, { targetName: "restate-shop-corruptible", workloadName: "restate-shop-corrupt" });
    const view = await waitForFinal(stack.db, run.id, 240_000);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED"); // a failed check is a result, not a crash
    expect(view.summary!.appChecks).toEqual([
      {
        name: "consistency",
        ok: false,
        message: "1 violation(s)",
        detail: { violations: [expect.objectContaining({ kind: "stock", productId: "p3" })] },
      },
    ]);
    const v = (view.summary!.appChecks![0]!.detail as { violations: Array<{ stock: number; sold: number; initial: number }> }).violations[0]!;
    expect(v.stock + v.sold).toBe(v.initial - 2);
    expect(view.events.some((e) => /app check consistency: FAILED: 1 violation/.test(e.message))).toBe(true);
    expect(membersOf(await provisioned(run.id))).toEqual([]);
    expect(existsSync(path.join(os.tmpdir(), `shop-restate-${run.id}`))).toBe(false);
    expect(restateDirsOf(run.id)).toEqual([]);
  });
});
