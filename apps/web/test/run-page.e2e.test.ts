// The run page in a real browser (Debian's Chromium driven by playwright-core),
// against the built web app, a real worker and a real k6 run.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRun } from "@opsbench/jobs";
import { openTestStack, shortRamp, taewaTarget, waitForFinal, launchBrowser, testWebUrl, waitForHydration } from "../../../tests/helpers";

const web = testWebUrl();
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;

beforeAll(async () => {
  stack = await openTestStack();
  browser = await launchBrowser();
  await stack.scope.targets.put(taewaTarget("page-taewa"));
  // Long enough for two 10 s buckets, so each chart has several points.
  await stack.scope.workloads.put(shortRamp("page-ramp", { holdSeconds: 18 }));
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const number = (s: string | null) => Number((s ?? "").replace(/[^0-9.-]/g, ""));

describe("run page", () => {
  it("updates live while the run goes, then shows the summary equal to the API's and three populated charts", async () => {
    const run = await startRun(stack.scope, stack.queue, { targetName: "page-taewa", workloadName: "page-ramp" });
    const page = await browser.newPage({ viewport: { width: 1280, height: 1800 } });
    await page.goto(`${web}/runs/${run.id}`);
    const initial = await page.getByTestId("run-status").textContent();
    expect(initial).not.toMatch(/SUCCEEDED/i);
    // Live updates need a hydrated page. The run's own sandbox network appears as the page loads, and Chromium fails
    // requests in flight on such a change (ERR_NETWORK_CHANGED): a page whose chunk failed so is loaded once more.
    await waitForHydration(page);
    // No reload from here on: the page must reach the final state by itself.
    await page
      .getByTestId("run-status")
      .filter({ hasText: /SUCCEEDED/i })
      .waitFor({ timeout: 150_000 });
    const view = await waitForFinal(stack.db, run.id);
    const api = await (await fetch(`${web}/api/v1/runs/${run.id}`)).json();
    expect(api.summary.requests).toBe(view.summary!.requests);

    await page
      .getByTestId("summary-requests")
      .filter({ hasText: String(api.summary.requests) })
      .waitFor({ timeout: 15_000 });
    const shown = async (id: string) => number(await page.getByTestId(id).textContent());
    expect(await shown("summary-requests")).toBe(api.summary.requests);
    expect(await shown("summary-failures")).toBe(api.summary.failures);
    expect(await shown("summary-goodput")).toBeCloseTo(api.summary.goodput, 1);
    expect(await shown("summary-rps")).toBeCloseTo(api.summary.rps, 0);
    for (const k of ["p50", "p90", "p95", "p99", "avg", "min", "max"]) {
      expect(await shown(`latency-${k}`), k).toBeCloseTo(api.summary.latencyMs[k], 1);
    }

    const buckets = api.series.points.length;
    expect(buckets).toBeGreaterThanOrEqual(2);
    for (const chart of ["chart-requests", "chart-p95", "chart-goodput"]) {
      const container = page.getByTestId(chart);
      await container.locator("svg").first().waitFor();
      const points = await container.locator(".recharts-line-dot, .recharts-bar-rectangle, .recharts-area-dot, .recharts-dot").count();
      // A second without a response has a request count (0) but no latency or goodput: no dot there.
      const withValue =
        chart === "chart-requests" ? buckets : api.series.points.filter((p: { p95Ms: number | null }) => p.p95Ms !== null).length;
      expect(points, chart).toBeGreaterThanOrEqual(withValue);
    }
    await page.screenshot({ path: ".data/run-page.png", fullPage: true });
    await page.close();
  });
});
