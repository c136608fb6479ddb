// Runs of study 004's shop (benchapps/shop, benchapps/shop-restate) by the worker:
// a local-service target of the app, the shop's own checkout workload shortened,
// and a few fixed requests sent once (e.g. the test-only corruption). Shared by
// tests/benchapps.test.ts and apps/worker/test/shop-restate-run.test.ts.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { startRun } from "@opsbench/jobs";
import { workloadInput, type WorkloadInput } from "@opsbench/core";
import { type openTestStack, waitForFinal } from "./helpers";

type Stack = Awaited<ReturnType<typeof openTestStack>>;

const shopPreset = fileURLToPath(new URL("../benchapps/shop/workload.json", import.meta.url));

/** One replica of `app` (SHOP_* settings in `env`). */
export function putShopTarget(
  stack: Stack,
  name: string,
  app: "shop" | "shop-restate",
  env: Record<string, string>,
  startTimeoutMs = 20_000,
) {
  return stack.scope.targets.put({ name, kind: "local-service", spec: { app, replicas: 1, startTimeoutMs, env } });
}

/** The shop's load preset (checkout and freq-items on random ids), ramped to 4 VUs in 2 s and held `holdSeconds`. */
export function putShopCheckoutLoad(stack: Stack, name: string, holdSeconds: number) {
  const preset = workloadInput.parse(JSON.parse(readFileSync(shopPreset, "utf8")));
  return stack.scope.workloads.put({
    name,
    spec: {
      ...preset.spec,
      stages: [
        { duration: "2s", target: 4 },
        { duration: `${holdSeconds}s`, target: 4 },
      ],
      gracefulRampDown: "2s",
    } as WorkloadInput["spec"],
  });
}

/** JSON POSTs, each sent once, in order, by one VU. */
export function putShopRequests(stack: Stack, name: string, requests: Array<{ name: string; path: string; body: unknown }>) {
  return stack.scope.workloads.put(
    workloadInput.parse({
      name,
      spec: {
        kind: "shared-iterations",
        vus: 1,
        iterations: 1,
        maxDuration: "30s",
        requests: requests.map((r) => ({
          name: r.name,
          method: "POST",
          path: r.path,
          body: JSON.stringify(r.body),
          headers: { "content-type": "application/json" },
        })),
      },
    }),
  );
}

/** Starts a run of the target and workload and waits until it is final; the run page's view of it. */
export async function runToEnd(stack: Stack, targetName: string, workloadName: string, timeoutMs?: number) {
  const run = await startRun(stack.scope, stack.queue, { targetName, workloadName });
  return waitForFinal(stack.db, run.id, timeoutMs);
}
