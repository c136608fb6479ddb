// Charts of long runs stay readable: four 30-minute runs imported from generated k6
// CSV files (through the import path, 10 req/s so the files are quick to make), opened
// side by side. Every series is drawn with at most a few hundred points, counts become a
// step line, and a 2-minute window (from/to in the URL, what a drag on a chart sets)
// comes back at 1 s resolution.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHART_POINT_BUDGET } from "@opsbench/core";
import { createImportedRun, defaultWorkspaceId } from "@opsbench/db";
import { readK6File } from "../../../packages/cli/src/read-k6-file";
import { launchBrowser, openTestStack, testWebUrl } from "../../../tests/helpers";

const web = testWebUrl();
const SECONDS = 30 * 60;
const RATE = 10;
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;
let dir = "";
const ids: string[] = [];

/** A constant-rate k6 CSV file: lognormal-ish latencies, slower for a minute at 20 min in the second run. */
function k6Csv(seed: number): string {
  const lines = ["metric_name,timestamp,metric_value,name,status,expected_response"];
  const t0 = 1_767_600_000 + seed * 7200;
  let x = seed;
  const rand = () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return x / 2 ** 31;
  };
  for (let s = 0; s < SECONDS; s++) {
    const slow = seed === 2 && s >= 1200 && s < 1260 ? 5 : 1;
    for (let r = 0; r < RATE; r++)
      lines.push(`http_req_duration,${t0 + s},${((5 + seed + 6 * rand() * rand()) * slow).toFixed(3)},GET /items,200,true`);
  }
  return `${lines.join("\n")}\n`;
}

beforeAll(async () => {
  stack = await openTestStack();
  browser = await launchBrowser();
  dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-long-runs-"));
  const workspaceId = await defaultWorkspaceId(stack.db);
  for (const seed of [1, 2, 3, 4]) {
    const file = path.join(dir, `run-${seed}.csv`);
    writeFileSync(file, k6Csv(seed));
    const r = (await readK6File(file)).result;
    const run = await createImportedRun(stack.db, workspaceId, {
      name: `long ${seed}`,
      loadStartedAt: new Date(r.loadWindow!.startMs),
      loadFinishedAt: new Date(r.loadWindow!.endMs),
      durationSource: r.loadWindow!.source,
      cells: r.cells,
      load: r.load,
      events: [],
    });
    ids.push(run.id);
  }
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const query = () => ids.map((id, i) => `g=${encodeURIComponent(`run ${i + 1}`)}:${id}`).join("&");

/** The points of each drawn line or area: one per "M"/"L" of its path (a step line draws two per point). */
async function pathPoints(page: Page, testId: string, selector: string): Promise<number[]> {
  const ds = await page
    .getByTestId(testId)
    .locator(selector)
    .evaluateAll((els) => els.map((e) => e.getAttribute("d") ?? ""));
  return ds.map((d) => (d.match(/[ML]/g) ?? []).length);
}

/** pathPoints once `count` paths are drawn: Recharts draws after hydration and measuring its container. */
async function drawnPaths(page: Page, testId: string, selector: string, count: number): Promise<number[]> {
  await expect.poll(async () => (await pathPoints(page, testId, selector)).length, { timeout: 30_000 }).toBe(count);
  return pathPoints(page, testId, selector);
}

const attr = async (page: Page, testId: string, name: string) => Number(await page.getByTestId(testId).getAttribute(name));

describe("charts of long runs", () => {
  it("draws four 30-minute runs with at most a few hundred points a series and zooms into 2 minutes at 1 s", async () => {
    // The page's HTML stays small: the series are what the charts draw, not every bucket of every run.
    const html = await (await fetch(`${web}/compare?${query()}`)).text();
    expect(html.length).toBeLessThan(150_000);

    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${web}/compare?${query()}`);
    await page.getByTestId("cmp-view").waitFor();

    // Whole runs: 10 s buckets, every series drawn, none with more points than the budget.
    for (const chart of ["cmp-chart-latency", "cmp-chart-goodput"]) {
      expect(await attr(page, chart, "data-resolution-seconds")).toBe(10);
      const lines = await drawnPaths(page, chart, "path.recharts-line-curve", chart === "cmp-chart-latency" ? 12 : 4);
      for (const n of lines) {
        expect(n).toBeGreaterThanOrEqual(100);
        expect(n).toBeLessThanOrEqual(CHART_POINT_BUDGET);
      }
      // No dot per bucket on a line this long.
      expect(await page.getByTestId(chart).locator(".recharts-line-dot").count()).toBe(0);
    }
    // Requests: 180 buckets a run are a step line per run, not 720 bars.
    expect(await page.getByTestId("cmp-chart-requests").locator(".recharts-bar-rectangle").count()).toBe(0);
    const areas = await drawnPaths(page, "cmp-chart-requests", "path.recharts-area-curve", 4);
    for (const n of areas) expect(n / 2).toBeLessThanOrEqual(CHART_POINT_BUDGET);
    expect(await attr(page, "cmp-chart-cdf", "data-points")).toBeLessThanOrEqual(4 * 200);
    // The method is said once above the verdicts, not in every row.
    await expect.poll(() => page.getByTestId("cmp-verdict-method").textContent()).toMatch(/moving-block bootstrap/);
    const basisCells = await page.getByTestId("verdict-basis").allTextContents();
    expect(basisCells.length).toBe(15);
    for (const b of basisCells) expect(b).not.toMatch(/moving-block bootstrap/);

    // Exactly the 2 minutes around the slow minute: every second, and the spike at full height.
    await page.goto(`${web}/compare?${query()}&from=1170&to=1290`);
    await page.getByTestId("cmp-zoom").first().waitFor();
    expect(await attr(page, "cmp-chart-latency", "data-resolution-seconds")).toBe(1);
    expect(await attr(page, "cmp-chart-latency", "data-series-points")).toBe(120);
    const zoomed = await drawnPaths(page, "cmp-chart-latency", "path.recharts-line-curve", 12);
    expect(zoomed).toEqual(Array(12).fill(120));
    expect(await page.getByTestId("cmp-chart-latency").locator("h3").textContent()).toMatch(/1 s buckets/);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("draws the run page of a long run from its rollup, and zooms it to 1 s", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${web}/runs/${ids[1]}`);
    await page.getByTestId("chart-p95").waitFor();
    expect(await attr(page, "chart-p95", "data-resolution-seconds")).toBe(10);
    const [line] = await drawnPaths(page, "chart-p95", "path.recharts-line-curve", 1);
    expect(line).toBeGreaterThanOrEqual(100);
    expect(line).toBeLessThanOrEqual(CHART_POINT_BUDGET);
    await page.goto(`${web}/runs/${ids[1]}?from=1170&to=1290`);
    await page.getByTestId("run-zoom").waitFor();
    expect(await attr(page, "chart-p95", "data-resolution-seconds")).toBe(1);
    expect(await attr(page, "chart-p95", "data-points")).toBe(120);
    await page.close();
  });
});
