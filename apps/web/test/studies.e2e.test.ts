// The study pages in a real browser (Debian's Chromium driven by playwright-core),
// against the built web app, a real worker and real k6 runs: a study of
// 2 targets x 2 workloads x 3 repetitions (tiny loads) started from the "New study"
// form, followed live on its page to the end, every cell's confidence interval
// equal to the API's; then an abort from the page.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { StudyView } from "@opsbench/db";
import { openTestStack, shortRamp, taewaTarget, launchBrowser, apiFetch } from "../../../tests/helpers";

const web = inject("webUrl");
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;

beforeAll(async () => {
  stack = await openTestStack();
  browser = await launchBrowser();
  await stack.scope.targets.put(taewaTarget("st-one", { replicas: 1 }));
  await stack.scope.targets.put(taewaTarget("st-two", { replicas: 2 }));
  // About 3 s of load each: a 2 s ramp and a 1 s hold.
  await stack.scope.workloads.put(shortRamp("st-light", { vus: 2, holdSeconds: 1, path: "/?n=1000" }));
  await stack.scope.workloads.put(shortRamp("st-heavy", { vus: 3, holdSeconds: 1, path: "/?n=20000" }));
  await stack.scope.workloads.put(shortRamp("st-long", { vus: 1, holdSeconds: 20 }));
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const FINAL = ["SUCCEEDED", "FAILED", "ABORTED"];

async function newPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  return { page, errors };
}

async function apiView(id: string): Promise<StudyView> {
  const res = await apiFetch(`${web}/api/v1/studies/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as StudyView;
}

describe("study pages", () => {
  it("starts a 2 x 2 x 3 study from the form, follows it live, and shows every cell with its 95% CI equal to the API's", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${web}/studies/new`);
    await page.locator('input[name="name"]').fill("two by two");
    for (const t of ["st-one", "st-two"]) await page.locator(`input[name="targets"][value="${t}"]`).check();
    for (const w of ["st-light", "st-heavy"]) await page.locator(`input[name="workloads"][value="${w}"]`).check();
    expect(await page.locator('input[name="repetitions"]').inputValue()).toBe("3"); // the default
    expect(await page.locator('select[name="order"]').inputValue()).toBe("interleaved-random");
    await page.locator('input[name="cooldownSeconds"]').fill("0");
    await page.locator('input[name="seed"]').fill("7");
    expect(await page.getByTestId("study-plan").textContent()).toContain("= 12 runs");
    await page.getByRole("button", { name: "Start study" }).click();
    await page.waitForURL(/\/studies\/[0-9a-f-]{36}$/);
    const studyId = page.url().split("/").at(-1)!;

    // The page follows the study by itself (no reload) to the end.
    expect(await page.getByTestId("study-status").textContent()).not.toBe("SUCCEEDED");
    const seenStatuses = new Set<string>();
    const until = Date.now() + 400_000;
    for (;;) {
      seenStatuses.add((await page.getByTestId("study-status").textContent())!);
      const finished = Number(await page.getByTestId("study-progress").getAttribute("data-finished"));
      if (finished === 12 && !(await page.getByTestId("study-live").count())) break;
      if (Date.now() > until) throw new Error(`study ${studyId} not finished on its page in time (${finished}/12)`);
      await page.waitForTimeout(1000);
    }
    expect(seenStatuses.has("RUNNING")).toBe(true);
    expect(await page.getByTestId("study-status").textContent()).toBe("SUCCEEDED");

    const api = await apiView(studyId);
    expect(api.status).toBe("SUCCEEDED");
    expect(api.seed).toBe(7);
    expect(api.order).toBe("interleaved-random");
    expect(await page.getByTestId("study-seed").textContent()).toBe("7");
    expect(api.cells).toHaveLength(4);
    expect(api.runs.every((r) => r.status === "SUCCEEDED")).toBe(true);

    // Every cell, with the confidence interval of p95 and req/s exactly as the API computed it.
    for (const cell of api.cells) {
      const el = page.getByTestId(`study-cell-${cell.target.name}-${cell.workload.name}`);
      expect(await el.count(), `${cell.target.name} x ${cell.workload.name}`).toBe(1);
      for (const [prefix, metric] of [
        ["", "p95"],
        ["rps-", "rps"],
      ] as const) {
        const s = cell.stats[metric];
        expect(s.n).toBe(3);
        expect(s.ci95).not.toBeNull();
        expect(s.ci95!.low).toBeLessThan(s.ci95!.high);
        expect(Number(await el.getAttribute(`data-${prefix}ci-low`)), `${metric} low`).toBe(s.ci95!.low);
        expect(Number(await el.getAttribute(`data-${prefix}ci-high`)), `${metric} high`).toBe(s.ci95!.high);
        expect(Number(await el.getAttribute(`data-${prefix}mean`))).toBe(s.mean);
      }
      // The written figures are the same numbers, rounded as the page writes them.
      for (const [metric, decimals] of [
        ["p50", 2],
        ["p95", 2],
        ["p99", 2],
        ["rps", 1],
        ["goodput", 2],
      ] as const) {
        const s = cell.stats[metric];
        const row = el.locator(`tr[data-metric="${metric}"]`);
        expect(await row.locator('[data-role="ci-low"]').textContent(), metric).toBe(s.ci95!.low.toFixed(decimals));
        expect(await row.locator('[data-role="ci-high"]').textContent(), metric).toBe(s.ci95!.high.toFixed(decimals));
        expect(await row.locator('[data-role="mean"]').textContent(), metric).toBe(s.mean!.toFixed(decimals));
        expect(await row.locator('[data-role="sd"]').textContent(), metric).toBe(s.sd!.toFixed(decimals));
      }
      // Each repetition's run, with its status, round and place in the run order.
      for (const r of cell.runs) {
        const chip = el.getByTestId(`study-run-${r.id}`);
        expect(await chip.getAttribute("data-status")).toBe("SUCCEEDED");
        expect(await chip.getAttribute("data-round")).toBe(String(r.round));
        expect(await chip.getAttribute("data-position")).toBe(String(r.position));
      }
    }

    // The recorded order: three rounds, each running every cell once, and not all in the same order.
    const rounds = await page
      .getByTestId("study-run-order")
      .locator("li[data-round]")
      .evaluateAll((lis) => lis.map((li) => li.getAttribute("data-order")!));
    expect(rounds).toHaveLength(3);
    for (const order of rounds) expect([...order].sort().join("")).toBe("ABCD");
    expect(new Set(rounds).size).toBeGreaterThan(1);
    const byPosition = [...api.runs].sort((a, b) => a.position! - b.position!);
    expect(rounds.join("")).toBe(byPosition.map((r) => "ABCD"[r.cell]).join(""));

    await page.screenshot({ path: "/tmp/studies-e2e.png", fullPage: true });

    // The list shows it, linked.
    await page.goto(`${web}/studies`);
    const row = page.locator(`[data-testid="study-row"][data-study-id="${studyId}"]`);
    expect(await row.textContent()).toContain("two by two");
    expect(await row.textContent()).toContain("12/12");
    await page.goto(`${web}/`);
    expect(await page.getByTestId("home-studies-link").getAttribute("href")).toBe("/studies");

    expect(errors).toEqual([]);
    await page.close();
  });

  it("aborts a study from its page after a confirmation; the run under way and the rest end ABORTED", async () => {
    const res = await apiFetch(`${web}/api/v1/studies`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "to abort", targets: ["st-one"], workloads: ["st-long"], repetitions: 3, cooldownSeconds: 0 }),
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const { page, errors } = await newPage();
    await page.goto(`${web}/studies/${id}`);
    // Wait until a run is under way, so the abort has something to stop.
    await page.locator('[data-testid^="study-run-"][data-status="RUNNING"]').first().waitFor({ timeout: 120_000 });

    let dismissedOnce = false;
    page.on("dialog", (d) => {
      if (!dismissedOnce) {
        dismissedOnce = true;
        void d.dismiss();
      } else void d.accept();
    });
    // Dismissing the confirmation changes nothing.
    await page.getByTestId("study-abort").click();
    await page.waitForTimeout(500);
    expect((await apiView(id)).status).toBe("RUNNING");
    await page.getByTestId("study-abort").click();
    await page.getByTestId("study-status").filter({ hasText: "ABORTED" }).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId("study-abort").count()).toBe(0);

    const until = Date.now() + 60_000;
    let view = await apiView(id);
    while (!view.runs.every((r) => FINAL.includes(r.status))) {
      if (Date.now() > until) throw new Error("the aborted study's runs did not end");
      await new Promise((r) => setTimeout(r, 500));
      view = await apiView(id);
    }
    expect(view.status).toBe("ABORTED");
    expect(view.runs.map((r) => r.status)).toEqual(["ABORTED", "ABORTED", "ABORTED"]);
    // The page reaches the final state by itself too.
    await page.getByTestId("study-live").waitFor({ state: "detached", timeout: 30_000 });
    for (const r of view.runs) expect(await page.getByTestId(`study-run-${r.id}`).getAttribute("data-status")).toBe("ABORTED");
    expect(errors).toEqual([]);
    await page.close();
  });
});
