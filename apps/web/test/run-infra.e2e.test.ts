// The run page's infra timeline, checks and custom metrics in a real browser
// (Debian's Chromium driven by playwright-core), against the built web app, a
// real worker and real k6 runs: a local-function target (scale to zero) shows
// its instances and cold starts under the latency charts; a user script with
// a custom Trend and checks shows them, equal to the API's.
import { workloadSpec } from "@opsbench/core";
import type { RunView } from "@opsbench/db";
import { startRun } from "@opsbench/jobs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStack, shortRamp, taewaTarget, waitForFinal, launchBrowser, testWebUrl } from "../../../tests/helpers";

const web = testWebUrl();
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;

beforeAll(async () => {
  stack = await openTestStack();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function openRun(runId: string): Promise<{ page: Page; errors: string[]; api: RunView }> {
  const view = await waitForFinal(stack.db, runId);
  expect(view.error).toBeNull();
  expect(view.status).toBe("SUCCEEDED");
  const api = (await (await fetch(`${web}/api/v1/runs/${runId}`)).json()) as RunView;
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${web}/runs/${runId}`);
  await page.getByTestId("run-status").filter({ hasText: "SUCCEEDED" }).waitFor();
  return { page, errors, api };
}

const SCRIPT = `
import http from "k6/http";
import { check } from "k6";
import { Counter, Trend } from "k6/metrics";

const wait = new Trend("taewa_wait", true);
const calls = new Counter("taewa_calls");

export const options = { scenarios: { main: { executor: "shared-iterations", vus: 2, iterations: 40, maxDuration: "30s" } } };

export default function () {
  const res = http.get(__ENV.OPSBENCH_BASE_URL + "/?n=500", { tags: { name: "taewa" } });
  wait.add(res.timings.waiting);
  calls.add(1);
  check(res, { "status is 200": (r) => r.status === 200, "never true": () => false });
}
`;

describe("run page: infra timeline, checks and custom metrics", () => {
  it("a run against a local-function target shows its instances and cold starts on the timeline", async () => {
    await stack.scope.targets.put({
      name: "infra-fn",
      kind: "local-function",
      spec: { app: "cpu-loop/node-http", concurrency: 2, maxInstances: 4, idleTimeoutMs: 3000, env: {}, startTimeoutMs: 10_000 },
    });
    await stack.scope.workloads.put(shortRamp("infra-ramp", { vus: 4, holdSeconds: 4, path: "/?n=20000" }));
    const run = await startRun(stack.scope, stack.queue, { targetName: "infra-fn", workloadName: "infra-ramp" });
    const { page, errors, api } = await openRun(run.id);

    expect(api.infra.kind).toBe("local-function");
    const points = api.infra.points;
    expect(points.length).toBeGreaterThan(2);
    const coldStarts = points.reduce((a, p) => a + p.coldStarts, 0);
    expect(coldStarts).toBeGreaterThan(0); // it started cold: the deploy probe's instance was retired
    expect(Math.max(...points.map((p) => p.replicas))).toBeGreaterThan(0);

    const section = page.getByTestId("run-infra");
    await section.waitFor();
    expect(await section.getAttribute("data-kind")).toBe("local-function");
    // Instances over time: one data point per observation, drawn as a line.
    const replicas = page.getByTestId("chart-replicas");
    expect(Number(await replicas.getAttribute("data-points"))).toBe(points.length);
    // Attached, not "visible": a count that never changed is a flat line, whose box has no height.
    const line = replicas.locator("path.recharts-line-curve").first();
    await line.waitFor({ state: "attached" });
    expect(await line.getAttribute("d")).toMatch(/^M[\d.,]+L/);
    expect(await page.getByTestId("infra-peak").textContent()).toBe(String(Math.max(...points.map((p) => p.replicas))));
    // Cold starts: the total written out, and one bar per second that had any.
    expect(await page.getByTestId("infra-cold-starts").textContent()).toBe(String(coldStarts));
    const cold = page.getByTestId("chart-cold-starts");
    expect(Number(await cold.getAttribute("data-points"))).toBe(points.length);
    expect(await cold.locator("path.recharts-rectangle:not(.recharts-tooltip-cursor)").count()).toBe(
      points.filter((p) => p.coldStarts > 0).length,
    );
    expect(await cold.textContent()).toContain(`${points.find((p) => p.coldStartMs.length)!.coldStartMs[0]!.toFixed(0)} ms`);
    // CPU per instance and the queue are drawn too.
    expect(Number(await page.getByTestId("chart-cpu").getAttribute("data-points"))).toBeGreaterThan(0);
    await page.getByTestId("chart-queue").locator("svg").first().waitFor();

    await page.screenshot({ path: "/tmp/run-infra-e2e-function.png", fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a run of a script with a custom Trend and checks shows them, equal to the API's", async () => {
    await stack.scope.targets.put(taewaTarget("infra-svc", { replicas: 1 }));
    await stack.scope.workloads.put({ name: "infra-script", spec: workloadSpec.parse({ kind: "script", source: SCRIPT }) });
    const run = await startRun(stack.scope, stack.queue, { targetName: "infra-svc", workloadName: "infra-script" });
    const { page, errors, api } = await openRun(run.id);

    expect(api.checks.map((c) => c.name).sort()).toEqual(["never true", "status is 200"]);
    const checks = page.getByTestId("run-checks");
    await checks.waitFor();
    for (const c of api.checks) {
      const row = checks.locator(`[data-testid="run-check"][data-check-name="${c.name}"]`);
      expect(await row.getAttribute("data-passes"), c.name).toBe(String(c.passes));
      expect(await row.getAttribute("data-fails"), c.name).toBe(String(c.fails));
    }
    expect(await checks.locator('[data-check-name="status is 200"]').getAttribute("data-passes")).toBe("40");
    expect(await checks.locator('[data-check-name="never true"]').getAttribute("data-fails")).toBe("40");

    const trend = api.customMetrics.find((m) => m.name === "taewa_wait");
    expect(trend?.kind).toBe("trend");
    const metrics = page.getByTestId("run-custom-metrics");
    const row = metrics.locator('[data-testid="run-custom-metric"][data-metric-name="taewa_wait"]');
    expect(await row.getAttribute("data-kind")).toBe("trend");
    expect(await row.getAttribute("data-count")).toBe("40");
    if (trend?.kind === "trend") {
      expect(await row.locator('[data-figure="p95"]').textContent()).toBe(trend.p95.toFixed(2));
      expect(await row.locator('[data-figure="avg"]').textContent()).toBe(trend.avg.toFixed(2));
    }
    const counter = metrics.locator('[data-testid="run-custom-metric"][data-metric-name="taewa_calls"]');
    expect(await counter.getAttribute("data-total")).toBe("40");

    // A local-service run draws its replicas too (one replica throughout).
    expect(await page.getByTestId("run-infra").getAttribute("data-kind")).toBe("local-service");
    expect(Number(await page.getByTestId("chart-replicas").getAttribute("data-points"))).toBe(api.infra.points.length);
    expect(await page.getByTestId("chart-cold-starts").count()).toBe(0);

    await page.screenshot({ path: "/tmp/run-infra-e2e-script.png", fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});
