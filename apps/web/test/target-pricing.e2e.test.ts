// Pricing typed into the target form, in a real browser: a serverful target priced per node-hour and a serverless one
// per 1 M requests are saved, run, and compared; the compare page shows the cost per 1 M successful requests and per
// month that the test computes from the prices it typed and the runs' own counts and durations. A priced target beside
// an unpriced one is not "the cheapest". Edit opens every kind with its values (pricing included) read back, and an
// endpoint the host policy refuses is refused at save, next to its field, the error going as soon as it is fixed.
import { mkdirSync } from "node:fs";
import type { RunSummary } from "@opsbench/core";
import { startRun } from "@opsbench/jobs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openTestStack, shortRamp, testWebUrl, waitForFinal } from "../../../tests/helpers";

const web = testWebUrl();
const SHOTS = "/tmp/shots35";
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;
const runs: Record<string, { id: string; summary: RunSummary }> = {};

/** What the test typed: USD per node-hour (2 fixed replicas), USD per 1 M requests. */
const PER_NODE_HOUR = 0.0464;
const PER_MILLION_REQUESTS = 0.2;
const MONTH_HOURS = 730;

beforeAll(async () => {
  stack = await openTestStack();
  browser = await launchBrowser();
  mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function newTargetPage(kind: string, width = 1280): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width, height: 1000 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${web}/targets/new`);
  await page.getByTestId("target-kind").selectOption(kind);
  return { page, errors };
}

async function fill(page: Page, values: Record<string, string>) {
  for (const [name, value] of Object.entries(values)) {
    const box = page.locator(`[name="${name}"]`);
    if ((await box.evaluate((el) => el.tagName)) === "SELECT") await box.selectOption(value);
    else await box.fill(value);
  }
}

const pick = (page: Page, name: string, value: string) => page.locator(`input[name="${name}"][value="${value}"]`).check();

async function save(page: Page, name: string) {
  await page.getByTestId("target-save").click();
  await page.waitForURL(new RegExp(`/targets\\?saved=${name}$`));
}

async function apiTarget(name: string): Promise<{ kind: string; spec: Record<string, unknown> } | undefined> {
  const res = await fetch(`${web}/api/v1/targets`);
  expect(res.status).toBe(200);
  return ((await res.json()) as Array<{ name: string; kind: string; spec: Record<string, unknown> }>).find((t) => t.name === name);
}

async function openEdit(page: Page, name: string) {
  await page.goto(`${web}/targets`);
  await page.locator(`[data-testid="target-row"][data-name="${name}"]`).getByRole("link", { name: "Edit" }).click();
  await page.waitForURL(`${web}/targets/${name}/edit`);
}

/** Each box shows the value (radios: the checked one). */
async function expectShown(page: Page, values: Record<string, string>) {
  for (const [name, value] of Object.entries(values)) {
    const box = page.locator(`[name="${name}"]`);
    if ((await box.first().getAttribute("type")) === "radio")
      expect(await page.locator(`[name="${name}"]:checked`).getAttribute("value"), name).toBe(value);
    else expect(await box.inputValue(), name).toBe(value);
  }
}

/** Money as the page is to show it (the test's own rendering of the rule in docs/cost.md): 3 significant digits below 100, whole units above. */
const threeDigits = (v: number) =>
  v >= 100 ? Math.round(v).toLocaleString("en-US") : Number(v.toPrecision(3)).toLocaleString("en-US", { maximumSignificantDigits: 3 });

describe("pricing in the target form", () => {
  it("saves prices typed in the form as the target's cost model, shows them in the list, and reads them back on edit", async () => {
    const { page, errors } = await newTargetPage("local-service");
    await page.locator('input[name="name"]').fill("form-nodes");
    await pick(page, "scaling", "fixed");
    await fill(page, { replicas: "2" });
    await pick(page, "pricing.mode", "reserved");
    await fill(page, { "pricing.unit": "USD", "pricing.perNodeHour": String(PER_NODE_HOUR), "pricing.nodeLabel": "e2-small" });
    await page.screenshot({ path: `${SHOTS}/h4-target-form-1280.png`, fullPage: true });
    await page.setViewportSize({ width: 1920, height: 1000 });
    await page.screenshot({ path: `${SHOTS}/h4-target-form-1920.png`, fullPage: true });
    await save(page, "form-nodes");
    expect((await apiTarget("form-nodes"))?.spec.costModel).toEqual({
      kind: "reserved",
      unit: "USD",
      nodeLabel: "e2-small",
      pricePerNodeSecond: PER_NODE_HOUR / 3600,
    });

    const fn = await newTargetPage("local-function");
    await fn.page.locator('input[name="name"]').fill("form-requests");
    await pick(fn.page, "pricing.mode", "pay-per-use");
    await fill(fn.page, { "pricing.unit": "USD", "pricing.perMillionRequests": String(PER_MILLION_REQUESTS) });
    await save(fn.page, "form-requests");
    expect((await apiTarget("form-requests"))?.spec.costModel).toEqual({
      kind: "pay-per-use",
      unit: "USD",
      pricePerRequest: PER_MILLION_REQUESTS / 1e6,
    });

    const plain = await newTargetPage("local-service");
    await plain.page.locator('input[name="name"]').fill("form-unpriced");
    await pick(plain.page, "scaling", "fixed");
    await fill(plain.page, { replicas: "1" });
    await save(plain.page, "form-unpriced");
    expect((await apiTarget("form-unpriced"))?.spec.costModel).toBeUndefined();

    // The list: a human description and what each is priced by.
    const priced = async (name: string) =>
      plain.page.locator(`[data-testid="target-row"][data-name="${name}"] [data-testid="target-priced"]`).textContent();
    expect(await priced("form-nodes")).toBe("0.0464 USD an hour per e2-small");
    expect(await priced("form-requests")).toBe("0.2 USD per 1 M requests");
    expect(await priced("form-unpriced")).toBe("not priced");
    expect(await plain.page.getByTestId("targets-table").textContent()).not.toContain("undefined");
    await plain.page.setViewportSize({ width: 1280, height: 800 });
    await plain.page.screenshot({ path: `${SHOTS}/h4-targets-1280.png`, fullPage: true });
    await plain.page.setViewportSize({ width: 1920, height: 800 });
    await plain.page.screenshot({ path: `${SHOTS}/h4-targets-1920.png`, fullPage: true });

    // Edited: the boxes show what was typed (pricing included); saved untouched, the spec is the same.
    for (const [name, shown] of [
      [
        "form-nodes",
        { scaling: "fixed", replicas: "2", "pricing.mode": "reserved", "pricing.perNodeHour": "0.0464", "pricing.unit": "USD" },
      ],
      ["form-requests", { "pricing.mode": "pay-per-use", "pricing.perMillionRequests": "0.2" }],
      ["form-unpriced", { scaling: "fixed", replicas: "1", "pricing.mode": "none" }],
    ] as const) {
      const before = (await apiTarget(name))?.spec;
      await openEdit(plain.page, name);
      await expectShown(plain.page, shown);
      await save(plain.page, name);
      expect((await apiTarget(name))?.spec, name).toEqual(before);
    }
    for (const p of [page, fn.page, plain.page]) await p.close();
    expect([...errors, ...fn.errors, ...plain.errors]).toEqual([]);
  });

  it("shows the cost the typed prices give per 1 M successful requests and per month; no cheapest beside an unpriced target", async () => {
    await stack.scope.workloads.put(shortRamp("form-priced-ramp", { vus: 2, holdSeconds: 5 }));
    for (const t of ["form-nodes", "form-requests", "form-unpriced"]) {
      const run = await startRun(stack.scope, stack.queue, { targetName: t, workloadName: "form-priced-ramp" });
      const view = await waitForFinal(stack.db, run.id);
      expect(view.status).toBe("SUCCEEDED");
      runs[t] = { id: run.id, summary: view.summary! };
    }
    // The test's arithmetic from what it typed and what the runs counted (not the cost engine's).
    const successful = (s: RunSummary) => s.requests - s.failures;
    const nodes = runs["form-nodes"]!.summary;
    const nodesTotal = 2 * (PER_NODE_HOUR / 3600) * nodes.durationSeconds;
    const expected = {
      "form-nodes": { perMillion: (nodesTotal / successful(nodes)) * 1e6, perMonth: 2 * PER_NODE_HOUR * MONTH_HOURS },
      "form-requests": (() => {
        const s = runs["form-requests"]!.summary;
        const total = (s.requests * PER_MILLION_REQUESTS) / 1e6;
        return { perMillion: (total / successful(s)) * 1e6, perMonth: (total / s.durationSeconds) * MONTH_HOURS * 3600 };
      })(),
    };

    const page = await browser.newPage({ viewport: { width: 1400, height: 2600 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const compare = (a: string, b: string) =>
      page.goto(
        `${web}/compare?${new URLSearchParams([
          ["g", `${a}:${runs[a]!.id}`],
          ["g", `${b}:${runs[b]!.id}`],
        ])}`,
      );
    await compare("form-nodes", "form-requests");
    await page.getByTestId("cmp-cost-table").waitFor();
    for (const [target, want] of Object.entries(expected)) {
      const cell = page.locator(`[data-testid="cost-cell"][data-target="${target}"]`).first();
      expect(Number(await cell.getAttribute("data-cost-per-million")), target).toBeCloseTo(want.perMillion, 9);
      expect(Number(await cell.getAttribute("data-cost-per-month")), target).toBeCloseTo(want.perMonth, 6);
      expect(await cell.getByTestId("cost-per-million").textContent(), target).toBe(`${threeDigits(want.perMillion)} USD / 1 M req`);
      expect(await cell.getByTestId("cost-per-month").textContent(), target).toBe(`${threeDigits(want.perMonth)} USD / month at this rate`);
    }
    // 2 nodes x 0.0464 USD x 730 h.
    expect(
      await page.locator('[data-testid="cost-cell"][data-target="form-nodes"] [data-testid="cost-per-month"]').first().textContent(),
    ).toBe("67.7 USD / month at this rate");
    const cheaper = expected["form-nodes"].perMillion < expected["form-requests"].perMillion ? "form-nodes" : "form-requests";
    expect(await page.locator('[data-testid="cost-cell"][data-cheapest="true"]').first().getAttribute("data-target")).toBe(cheaper);
    await page.getByTestId("cmp-cost-table").screenshot({ path: `${SHOTS}/h4-compare-cost-1400.png` });

    // An unpriced target beside a priced one: nothing is "the cheapest".
    await compare("form-nodes", "form-unpriced");
    await page.getByTestId("cmp-cost-table").waitFor();
    expect(await page.locator('[data-testid="cost-cell"][data-cheapest="true"]').count()).toBe(0);
    expect(await page.getByTestId("cmp-cost-table").textContent()).toContain("no cheapest: fewer than two targets are priced");
    expect(await page.locator('[data-testid="cost-cell"][data-target="form-unpriced"]').first().textContent()).toContain("not priced");
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("the host policy at save, and fields judged again as they change", () => {
  it("refuses an endpoint the policy refuses next to its field, naming the rule; the error goes once the field is fixed", async () => {
    const { page, errors } = await newTargetPage("endpoint");
    await page.locator('input[name="name"]').fill("policy-endpoint");
    const urlError = page.locator('[data-field="spec.url"] [data-testid="error-spec.url"]');
    // Port 80 of loopback: not on the allowlist the test's worker has (loopback ports 1024-65535).
    await fill(page, { url: "http://127.0.0.1:80/" });
    await page.getByTestId("target-save").click();
    await urlError.waitFor();
    expect(await urlError.textContent()).toMatch(/^host policy, loopback: load to 127\.0\.0\.1:80 refused: .*OPSBENCH_LOAD_ALLOWED_HOSTS/);
    expect(await apiTarget("policy-endpoint")).toBeUndefined();
    // Changed: the refusal is judged again at the next save, so it goes now.
    await fill(page, { url: "http://169.254.169.254/latest/meta-data/" });
    expect(await urlError.count()).toBe(0);
    await page.getByTestId("target-save").click();
    await urlError.waitFor();
    expect(await urlError.textContent()).toMatch(/^host policy, never-loaded ranges: .*169\.254\.0\.0\/16/);
    expect(await apiTarget("policy-endpoint")).toBeUndefined();
    // Priced from a catalog, then saved where the policy admits it; edit reads both back.
    await fill(page, { url: "http://127.0.0.1:9009/" });
    await pick(page, "pricing.mode", "catalog");
    await fill(page, { "pricing.catalog": "aws-lambda-x86-us-east-1" });
    await page.screenshot({ path: `${SHOTS}/h4-catalog-pricing-1280.png`, fullPage: true });
    await save(page, "policy-endpoint");
    expect((await apiTarget("policy-endpoint"))?.spec).toEqual({
      url: "http://127.0.0.1:9009/",
      costModel: { catalog: "aws-lambda-x86-us-east-1" },
    });
    await openEdit(page, "policy-endpoint");
    await expectShown(page, { url: "http://127.0.0.1:9009/", "pricing.mode": "catalog", "pricing.catalog": "aws-lambda-x86-us-east-1" });
    // A host name off the allowlist: the steps that admit it, with the workspace's token once the target is saved.
    await fill(page, { url: "http://bench.example.com:8080/" });
    await save(page, "policy-endpoint");
    await openEdit(page, "policy-endpoint");
    const steps = page.getByTestId("host-verification");
    await steps.locator("code").first().waitFor();
    await page.screenshot({ path: `${SHOTS}/h4-endpoint-form-1280.png`, fullPage: true });
    expect(await steps.textContent()).toMatch(
      /serve http:\/\/bench\.example\.com:8080\/\.well-known\/opsbench-verify\/[0-9a-f]{40} answering 200/,
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a schema error next to its field goes as soon as the field holds a valid value, before saving again", async () => {
    const { page, errors } = await newTargetPage("local-service");
    await page.locator('input[name="name"]').fill("revalidated");
    await pick(page, "scaling", "fixed");
    await fill(page, { replicas: "0" });
    await pick(page, "pricing.mode", "reserved");
    await fill(page, { "pricing.perNodeHour": "-1" });
    await page.getByTestId("target-save").click();
    const replicas = page.locator('[data-testid="error-spec.replicas"]');
    const price = page.locator('[data-testid="error-spec.costModel.pricePerNodeSecond"]');
    await replicas.waitFor();
    await price.waitFor();
    await fill(page, { replicas: "3" });
    expect(await replicas.count()).toBe(0);
    // Still wrong: the schema's word stays.
    await fill(page, { "pricing.perNodeHour": "-2" });
    expect(await price.textContent()).toMatch(/>= 0/);
    await fill(page, { "pricing.perNodeHour": "0.05" });
    expect(await price.count()).toBe(0);
    await save(page, "revalidated");
    expect(errors).toEqual([]);
    await page.close();
  });
});
