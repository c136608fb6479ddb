// Study 004's shop on Restate (benchapps/shop-restate), run end to end by the
// in-process worker: the shop's own workload (benchapps/shop/workload.json,
// shortened) loads a local-service target that is restate-server, the shop's
// Restate services and the HTTP facade; the run records the consistency check
// the app's manifest names (read from Restate's storage after the load), and
// teardown leaves no process and no Restate data directory. A second run corrupts
// stock on purpose and must record the check failed, naming the product.
import { readdirSync } from "node:fs";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { groupAlive } from "@opsbench/host";
import { openTestStack } from "../../../tests/helpers";
import { putShopCheckoutLoad, putShopRequests, putShopTarget, runToEnd } from "../../../tests/shop-runs";

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

const restateDirsOf = (runId: string) => readdirSync(os.tmpdir()).filter((f) => f.startsWith(`shop-restate-${runId}-`));

async function provisioned(runId: string) {
  const row = await stack.db.run.findUniqueOrThrow({ where: { id: runId }, include: { steps: true } });
  return groupsOf(row.steps.find((s) => s.name === "PROVISION")!.detail);
}

describe("shop on Restate (real restate-server, real worker, real k6)", () => {
  it("the shop's checkout workload runs; the consistency check after it passes and is on the run; nothing is left", async () => {
    // Little stock, so a short load both completes and rolls back checkouts.
    await putShopTarget(
      stack,
      "restate-shop",
      "shop-restate",
      { SHOP_SEED_PRODUCTS: "20", SHOP_SEED_USERS: "20", SHOP_SEED_CARTS: "40", SHOP_SEED_STOCK: "5", SHOP_SEED_CREDITS: "3000" },
      60_000,
    );
    await putShopCheckoutLoad(stack, "restate-shop-checkout", 8);
    const view = await runToEnd(stack, "restate-shop", "restate-shop-checkout", 240_000);
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
      `shop-restate run ${view.id}: ${s.requests} requests, ${s.rps.toFixed(1)} req/s, p50 ${s.latencyMs.p50.toFixed(1)} ms, p95 ${s.latencyMs.p95.toFixed(1)} ms, ${s.failures} failures (rolled-back checkouts)`,
    );

    // Teardown stopped the whole group (node, restate-server) and Restate's data went with it.
    const groups = await provisioned(view.id);
    expect(groups.length).toBeGreaterThanOrEqual(1);
    expect(groups.filter((g) => groupAlive(g))).toEqual([]);
    expect(restateDirsOf(view.id)).toEqual([]);
  });

  it("a run that corrupts stock on purpose records the check failed, naming the product", async () => {
    await putShopTarget(
      stack,
      "restate-shop-corruptible",
      "shop-restate",
      { SHOP_SEED_PRODUCTS: "10", SHOP_SEED_USERS: "5", SHOP_SEED_CARTS: "10", SHOP_ALLOW_CORRUPTION: "1" },
      60_000,
    );
    await putShopRequests(stack, "restate-shop-corrupt", [
      { name: "checkout", path: "/orders/checkout", body: { cartId: "random", userId: "random" } },
      { name: "corrupt", path: "/admin/corrupt", body: { productId: "p3", stockDelta: -2 } },
    ]);
    const view = await runToEnd(stack, "restate-shop-corruptible", "restate-shop-corrupt", 240_000);
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
    const v = (view.summary!.appChecks![0]!.detail as { violations: Array<{ stock: number; sold: number; initial: number }> })
      .violations[0]!;
    expect(v.stock + v.sold).toBe(v.initial - 2);
    expect(view.events.some((e) => /app check consistency: FAILED: 1 violation/.test(e.message))).toBe(true);
    expect((await provisioned(view.id)).filter((g) => groupAlive(g))).toEqual([]);
    expect(restateDirsOf(view.id)).toEqual([]);
  });
});
