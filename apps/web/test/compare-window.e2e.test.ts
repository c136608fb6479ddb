// The page-wide zoom (issue 35, findings 4 and 5), in a real browser against the built web app: a drag across the
// compare page's time panel changes every row's x range, the CDF, the results table and the verdicts to the window,
// and the numbers are the window's, computed here from the requests this test wrote (k6 files imported by the real
// `opsbench import k6`) whose two halves differ: A is fast then slow, B the other way round (less so). The run page
// draws the offered load. Screenshots: /tmp/shots35/h3-*.png.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runStore } from "@opsbench/db";
import { launchBrowser, openTestStack, testWebUrl } from "../../../tests/helpers";
import { exactQuantile, importK6Requests, type WrittenLoadSecond, type WrittenRequest } from "../../../tests/k6-result-files";

const web = testWebUrl();
const SHOTS = "/tmp/shots35";
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;
let dir: string;
const T0 = Date.UTC(2026, 10, 29, 6, 0, 0);
const SECONDS = 120;
const RATE = 10;

/** Each run: 10 req/s for 120 s, latency `first` + 0..9 ms in the first minute, `second` + 0..9 ms after; all succeed. */
const requests = (first: number, second: number): WrittenRequest[] =>
  Array.from({ length: SECONDS * RATE }, (_, i) => {
    const atMs = i * (1000 / RATE);
    return { atMs, ms: (atMs < 60_000 ? first : second) + (i % 10), ok: true };
  });
/** The load: 10 iterations a second; 5 VUs in the first minute, 20 after. */
const load: WrittenLoadSecond[] = Array.from({ length: SECONDS }, (_, s) => ({ second: s, iterations: RATE, vus: s < 60 ? 5 : 20 }));

const written: Record<"a" | "b", Array<{ id: string; requests: WrittenRequest[] }>> = { a: [], b: [] };

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  browser = await launchBrowser();
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-window-"));
  await mkdir(SHOTS, { recursive: true });
  // Two runs a side, 1 ms apart: A 20 ms then 100 ms, B 40 ms then 50 ms.
  for (const [side, first, second] of [
    ["a", 20, 100],
    ["b", 40, 50],
  ] as const)
    for (const r of [0, 1]) {
      const reqs = requests(first + r, second + r);
      const t0 = T0 + (side === "a" ? r : 2 + r) * 300_000;
      const id = await importK6Requests(dir, `window-${side}${r}`, reqs, { t0, load });
      written[side].push({ id, requests: reqs });
      // The target's replicas, a point a second: 1 in the first minute, 3 after (CPU 20% then 60%).
      const infra = Array.from({ length: SECONDS }, (_, s) => ({
        ts: new Date(t0 + s * 1000),
        replicas: s < 60 ? 1 : 3,
        cpuPercent: s < 60 ? 20 : 60,
        detail: { kind: "local-service" },
      }));
      await runStore(stack.db, id).appendBatch({ http: [], load: [], metrics: [], infra });
    }
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const query = () =>
  `g=${encodeURIComponent("A")}:${written.a.map((r) => r.id).join(",")}&g=${encodeURIComponent("B")}:${written.b.map((r) => r.id).join(",")}`;

/** What the test expects of a window [from, to): per group its requests, and per run the p95 (k6's definition). */
function expected(from: number, to: number) {
  const inWindow = (r: WrittenRequest) => Math.floor(r.atMs / 1000) >= from && Math.floor(r.atMs / 1000) < to;
  const side = (runs: Array<{ requests: WrittenRequest[] }>) => {
    const kept = runs.map((r) => r.requests.filter(inWindow));
    return {
      requests: kept.reduce((n, k) => n + k.length, 0),
      merged95: exactQuantile(
        kept.flat().map((r) => r.ms),
        0.95,
      ),
      runP95: kept.map((k) =>
        exactQuantile(
          k.map((r) => r.ms),
          0.95,
        ),
      ),
    };
  };
  const a = side(written.a);
  const b = side(written.b);
  const geo = (xs: number[]) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  return { a, b, ratio: geo(b.runP95) / geo(a.runP95), difference: mean(b.runP95) - mean(a.runP95) };
}

const number = (t: string | null) => Number((t ?? "").replace(/[^\d.-]/g, ""));

/** A group row's Requests and p95 cells of the results table (columns: group, status, requests, failed, goodput, req/s, p50, p95). */
async function groupRow(page: Page, group: number) {
  const cells = page.locator(`[data-testid="cmp-group-row"][data-group="${group}"] td`);
  return { requests: number(await cells.nth(2).textContent()), p95: number(await cells.nth(7).textContent()) };
}

/** The p95 verdict of B against A: its estimate and scale. */
async function p95Verdict(page: Page) {
  const row = page.locator('[data-metric="p95"][data-difference]').first();
  await row.waitFor();
  return { estimate: Number(await row.getAttribute("data-difference")), scale: await row.getAttribute("data-scale") };
}

const TIME_ROWS = ["cmp-chart-requests", "cmp-chart-latency", "cmp-chart-goodput", "cmp-chart-infra", "cmp-chart-infra-cpu"];

/** The x axis tick values a row draws (seconds: its labels "30s"; the y axes' have no unit or "%"). */
const xTicks = (page: Page, testId: string) =>
  page
    .getByTestId(testId)
    .locator(".recharts-cartesian-axis-tick-value")
    .allTextContents()
    .then((ts) => ts.filter((t) => /^\d+s$/.test(t.trim())).map((t) => Number.parseFloat(t)));

const cdfPath = (page: Page) =>
  page
    .getByTestId("cmp-chart-cdf")
    .locator("path.recharts-line-curve")
    .evaluateAll((els) => els.map((e) => e.getAttribute("d")).join("|"));

async function dragAcross(page: Page, testId: string, from: number, to: number, lastSecond: number) {
  const plot = page.getByTestId(testId).locator(".recharts-cartesian-grid").first();
  await plot.scrollIntoViewIfNeeded();
  const grid = await plot.boundingBox();
  if (!grid) throw new Error(`${testId} has no plot area`);
  const x = (s: number) => grid.x + (grid.width * s) / lastSecond;
  const y = grid.y + grid.height / 2;
  await page.mouse.move(x(from), y);
  await page.mouse.down();
  await page.mouse.move(x((from + to) / 2), y, { steps: 5 });
  await page.mouse.move(x(to), y, { steps: 5 });
  await page.mouse.up();
}

describe("the page-wide zoom", () => {
  it("a drag on the compare page sets every time row, the CDF, the table and the verdicts to the window", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${web}/compare?${query()}`);
    await page.getByTestId("cmp-time-panel").waitFor();
    await page.getByTestId("cmp-chart-infra").locator("path.recharts-line-curve").first().waitFor();

    // The whole runs: the numbers this test computes from its requests (so the readers below read what they mean).
    const whole = expected(0, SECONDS);
    expect((await groupRow(page, 0)).requests).toBe(whole.a.requests);
    expect(Math.abs((await groupRow(page, 0)).p95 / whole.a.merged95 - 1)).toBeLessThan(0.03);
    const wholeVerdict = await p95Verdict(page);
    const wholeExpected = wholeVerdict.scale === "difference" ? whole.difference : whole.ratio;
    expect(Math.abs(wholeVerdict.estimate / wholeExpected - 1)).toBeLessThan(0.03);
    for (const row of TIME_ROWS)
      await expect.poll(async () => Math.max(...(await xTicks(page, row))), { message: row }).toBeGreaterThanOrEqual(100);
    const wholeCdf = await cdfPath(page);
    // The load row draws the offered load (arrivals/s for these imported runs) beside the requests.
    const loadPaths = page.getByTestId("cmp-chart-requests").locator(".load-line path");
    expect(await loadPaths.count()).toBe(2);
    for (const d of await loadPaths.evaluateAll((els) => els.map((e) => e.getAttribute("d") ?? "")))
      expect((d.match(/L/g) ?? []).length).toBeGreaterThan(SECONDS);
    await page.screenshot({ path: `${SHOTS}/h3-compare-1280.png`, fullPage: true });

    // A real drag across the latency row over the first minute (0-60 s of 0-120 s).
    await dragAcross(page, "cmp-chart-latency", 2, 58, SECONDS);
    await page.waitForURL(/[?&]from=\d+.*[?&]to=\d+/, { timeout: 30_000 });
    const q = new URL(page.url()).searchParams;
    const from = Number(q.get("from"));
    const to = Number(q.get("to"));
    expect(from).toBeLessThan(10);
    expect(to).toBeGreaterThan(50);
    expect(to).toBeLessThanOrEqual(62);
    const badge = page.getByTestId("cmp-zoom");
    await badge.waitFor({ timeout: 30_000 });
    expect(await badge.textContent()).toContain(`window ${from}–${to} s`);

    // Every time row's x axis is the window's.
    for (const row of TIME_ROWS) {
      await expect.poll(async () => Math.max(...(await xTicks(page, row))), { timeout: 30_000 }).toBeLessThanOrEqual(to);
      expect(Math.min(...(await xTicks(page, row))), row).toBeGreaterThanOrEqual(from);
    }
    // The distribution, the table and the verdict are the window's.
    expect(await cdfPath(page)).not.toBe(wholeCdf);
    const win = expected(from, to);
    expect(win.a.merged95).toBeLessThan(whole.a.merged95 / 2);
    for (const [g, side] of [
      [0, win.a],
      [1, win.b],
    ] as const) {
      const row = await groupRow(page, g);
      expect(row.requests, `group ${g} requests`).toBe(side.requests);
      expect(Math.abs(row.p95 / side.merged95 - 1), `group ${g} p95`).toBeLessThan(0.03);
    }
    const windowVerdict = await p95Verdict(page);
    const windowExpected = windowVerdict.scale === "difference" ? win.difference : win.ratio;
    expect(Math.abs(windowVerdict.estimate / windowExpected - 1)).toBeLessThan(0.03);
    expect(Math.abs(windowVerdict.estimate / wholeVerdict.estimate - 1)).toBeGreaterThan(0.5);

    await page.screenshot({ path: `${SHOTS}/h3-compare-zoomed-1280.png`, fullPage: true });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.goto(`${web}/compare?${query()}`);
    await page.getByTestId("cmp-chart-infra").locator("path.recharts-line-curve").first().waitFor();
    await page.screenshot({ path: `${SHOTS}/h3-compare-1920.png`, fullPage: true });

    // Reset goes back to the whole runs.
    await page.goto(`${web}/compare?${query()}&from=${from}&to=${to}`);
    await page.getByTestId("zoom-reset").click();
    await page.waitForURL((u) => !u.searchParams.has("from"), { timeout: 30_000 });
    await expect.poll(async () => (await groupRow(page, 0)).requests, { timeout: 30_000 }).toBe(whole.a.requests);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("the run page draws the offered load on the panel's axis, and its zoom sets the cards", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const run = written.a[0]!;
    await page.goto(`${web}/runs/${run.id}`);
    const loadLine = page.getByTestId("chart-requests").locator(".load-line path");
    await loadLine.first().waitFor({ state: "attached", timeout: 30_000 });
    // One step a second (1 s buckets for a 2-minute run), at the 10 arrivals/s the file has.
    expect(((await loadLine.first().getAttribute("d")) ?? "").match(/L/g)?.length ?? 0).toBeGreaterThan(SECONDS);
    expect(await page.getByTestId("chart-requests").textContent()).toMatch(/arrivals\/s/);
    await page.getByTestId("chart-replicas").locator("path.recharts-line-curve").first().waitFor();
    for (const row of ["chart-requests", "chart-p95", "chart-replicas"])
      await expect.poll(async () => Math.max(...(await xTicks(page, row))), { message: row }).toBeGreaterThanOrEqual(100);
    await page.screenshot({ path: `${SHOTS}/h3-run-1280.png`, fullPage: true });

    await page.goto(`${web}/runs/${run.id}?from=0&to=60`);
    await page.getByTestId("run-zoom-badge").waitFor();
    const inWindow = run.requests.filter((r) => r.atMs < 60_000);
    await expect
      .poll(async () => number(await page.getByTestId("summary-requests").textContent()), { timeout: 30_000 })
      .toBe(inWindow.length);
    for (const row of ["chart-requests", "chart-p95", "chart-replicas"])
      expect(Math.max(...(await xTicks(page, row))), row).toBeLessThanOrEqual(60);

    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.goto(`${web}/runs/${run.id}`);
    await loadLine.first().waitFor({ state: "attached", timeout: 30_000 });
    await page.screenshot({ path: `${SHOTS}/h3-run-1920.png`, fullPage: true });
    await page.close();
  });
});
