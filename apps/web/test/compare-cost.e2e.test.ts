// DevOps vs NoOps with prices: a serverful target (2 replicas, priced per node-second
// like the IoT study's GKE) against a serverless one (pay per request and billed
// second), compared: the cost table shows cost per 1,000 successful requests with the cheapest
// highlighted, and the break-even chart says where serverless stops being cheaper, with the
// serverful capacity measured only when its run saturated.
import { mkdirSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRun } from "@opsbench/jobs";
import { cpuLoopTarget, GKE_NODE_PRICES } from "../../../tests/cpu-loop-targets";
import { openTestStack, shortRamp, waitForFinal, launchBrowser, testWebUrl, waitForHydration } from "../../../tests/helpers";

const web = testWebUrl();
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;
const runIds: Record<string, string> = {};

beforeAll(async () => {
  stack = await openTestStack();
  browser = await launchBrowser();
  mkdirSync("/tmp/shots35", { recursive: true });
  await stack.scope.targets.put(cpuLoopTarget("priced-service", "local-service", { replicas: 2, costModel: GKE_NODE_PRICES }));
  await stack.scope.targets.put(
    cpuLoopTarget("priced-function", "local-function", {
      platform: "cloud-run",
      concurrency: 10,
      maxInstances: 2,
      costModel: { kind: "pay-per-use", unit: "EUR-cent", pricePerRequest: 2.568e-5, pricePerVcpuSecond: 9.122e-4, vcpu: 1 },
    }),
  );
  await stack.scope.workloads.put(shortRamp("priced-ramp", { vus: 2, holdSeconds: 5 }));
  for (const t of ["priced-service", "priced-function"]) {
    const run = await startRun(stack.scope, stack.queue, { targetName: t, workloadName: "priced-ramp" });
    expect((await waitForFinal(stack.db, run.id)).status).toBe("SUCCEEDED");
    runIds[t] = run.id;
  }
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe("comparison with costs", () => {
  it("prices both groups, names the cheapest, and draws the break-even curve", async () => {
    const res = await fetch(`${web}/api/v1/comparisons`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        groups: [
          { label: "service", runIds: [runIds["priced-service"]] },
          { label: "function", runIds: [runIds["priced-function"]] },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const data = await res.json();
    expect(data.costs.map((c: { unit: string }) => c.unit)).toEqual(["EUR-cent", "EUR-cent"]);
    for (const [i, c] of data.costs.entries()) {
      const { requests, failures } = data.groups[i].runs[0].summary;
      expect(c.perThousandRequests).toBeCloseTo((c.total / requests) * 1000, 8);
      expect(c.perThousandSuccessfulRequests).toBeCloseTo((c.total / (requests - failures)) * 1000, 8);
    }
    expect(data.breakEvens).toHaveLength(1);
    const be = data.breakEvens[0];
    expect([be.serverful, be.serverless]).toEqual(["service", "function"]);
    expect(be.result.points.length).toBeGreaterThan(10);
    // A capacity only from a saturated run; otherwise none, and the chart says so.
    expect(be.capacityPerNodeRps === null).toBe(!be.capacity.known);

    const page = await browser.newPage({ viewport: { width: 1400, height: 2600 } });
    // The charts draw only after hydration: an error on the page is what a failure below should name.
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("console", (m) => m.type() === "error" && pageErrors.push(m.text()));
    const query = new URLSearchParams([
      ["g", `service:${runIds["priced-service"]}`],
      ["g", `function:${runIds["priced-function"]}`],
    ]);
    await page.goto(`${web}/compare?${query}`);
    // The verdict card's cost line: the cheaper group and the relative difference per 1,000 successful requests, from
    // each group's total over its successful requests (computed here).
    const perOk = data.costs.map((c: { total: number }, i: number) => {
      const { requests, failures } = data.groups[i].runs[0].summary;
      return (c.total / (requests - failures)) * 1000;
    });
    const costLine = page.locator('[data-testid="verdict-answer-line"][data-line="cost"]');
    expect(await costLine.getByTestId("answer-winner").textContent()).toBe(`${perOk[1] < perOk[0] ? "function" : "service"} is cheaper`);
    const rel = perOk[1] / perOk[0] - 1;
    expect(await costLine.getByTestId("answer-relative").textContent()).toBe(
      `${rel >= 0 ? "+" : "−"}${Math.abs(rel * 100).toFixed(Math.abs(rel) < 10 ? 1 : 0)}%`,
    );
    const table = page.getByTestId("cmp-cost-table");
    await table.waitFor();
    expect(await table.getAttribute("data-cost-available")).toBe("true");
    const cheapest = page.locator('[data-testid="cost-cell"][data-cheapest="true"]');
    expect(await cheapest.count()).toBeGreaterThanOrEqual(1);
    const chart = page.getByTestId("cmp-chart-break-even");
    // Attached, not visible: without a measured capacity the serverful line is flat, a path of no height. Recharts
    // draws only on a hydrated page (waitForHydration loads again a page whose chunk failed).
    await waitForHydration(page);
    await chart
      .locator("svg path.recharts-curve")
      .first()
      .waitFor({ state: "attached" })
      .catch((err: Error) => {
        throw new Error(`the break-even chart drew no line (page errors: ${pageErrors.join(" | ") || "none"}): ${err.message}`);
      });
    expect(await chart.locator("path.recharts-curve").count()).toBe(2);
    expect(await page.getByTestId("break-even-verdict").textContent()).toMatch(
      /function (stops being cheaper at|stays cheaper up to|is never cheaper)/,
    );
    expect(await page.getByTestId("break-even-capacity-unknown").count()).toBe(be.capacity.known ? 0 : 1);
    expect(await page.getByTestId("cmp-cost-table").textContent()).toContain(
      "Cost per 1 M successful requests and per month at the measured rate",
    );
    // Both axes titled, the cost in the currency (EUR-cent shown in EUR).
    expect(await chart.locator(".recharts-label").allTextContents()).toEqual([
      "steady load (successful requests per second)",
      "cost (EUR per hour)",
    ]);
    await page.screenshot({ path: "/tmp/compare-cost.png", fullPage: true });
    await chart.screenshot({ path: "/tmp/shots35/h4-break-even-1400.png" });
    await page.close();
  });
});
