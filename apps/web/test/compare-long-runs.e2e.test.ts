// Charts of long runs stay readable: four 30-minute runs imported from generated k6
// CSV files (through the import path; shaped like bench:compare's, two requests, a few
// 503s, but 10 req/s so the files are quick to make), opened side by side. Every series
// is drawn with at most a few hundred points, counts become a step line, and a 2-minute
// window (a real mouse drag across a chart, or from/to in the URL) comes back at 1 s
// resolution. A cloud platform's 60 s series is drawn as steps at its own resolution.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHART_POINT_BUDGET, METRIC_CATALOG } from "@opsbench/core";
import { createImportedRun, defaultWorkspaceId, runStore } from "@opsbench/db";
import { readK6File } from "../../../apps/cli/src/read-k6-file";
import { launchBrowser, openTestStack, testWebUrl, waitForHydration } from "../../../tests/helpers";

const web = testWebUrl();
const SECONDS = 30 * 60;
const RATE = 10;
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;
let dir = "";
const ids: string[] = [];

/** A constant-rate k6 CSV file as bench:compare makes them: lognormal latencies, two requests, 0.2% 503s; the second run slower for a minute at 20 min. */
function k6Csv(seed: number): string {
  const lines = ["metric_name,timestamp,metric_value,name,status,expected_response"];
  const t0 = 1_767_600_000 + seed * 7200;
  let x = seed;
  const rand = () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return (x + 0.5) / 2 ** 31;
  };
  const normal = () => Math.sqrt(-2 * Math.log(rand())) * Math.cos(2 * Math.PI * rand());
  for (let s = 0; s < SECONDS; s++) {
    const slow = seed === 2 && s >= 1200 && s < 1260 ? 5 : 1;
    for (let r = 0; r < RATE; r++) {
      const status = rand() < 0.002 ? 503 : 200;
      const name = r % 3 === 0 ? "POST /orders" : "GET /items";
      lines.push(
        `http_req_duration,${t0 + s},${((7 + seed) * slow * Math.exp(0.35 * normal())).toFixed(3)},${name},${status},${status < 400}`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

/** A cloud platform's points (CloudWatch-like: one a minute) on the second run's timeline: instances and CPU. */
async function addMinuteInfra(runId: string, loadStartMs: number) {
  const infra = Array.from({ length: SECONDS / 60 }, (_, k) => ({
    ts: new Date(loadStartMs + k * 60_000),
    replicas: 2 + (k % 2),
    cpuPercent: 20 + 15 * (k % 3),
    detail: { kind: "aws-asg" },
  }));
  await runStore(stack.db, runId).appendBatch({ http: [], load: [], metrics: [], infra });
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
    if (seed === 2) await addMinuteInfra(run.id, r.loadWindow!.startMs);
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
  await waitForHydration(page);
  await expect.poll(async () => (await pathPoints(page, testId, selector)).length, { timeout: 30_000 }).toBe(count);
  return pathPoints(page, testId, selector);
}

const attr = async (page: Page, testId: string, name: string) => Number(await page.getByTestId(testId).getAttribute(name));

/**
 * Drags the mouse across a chart over time from second `from` to second `to` of its x axis
 * (0 to `lastSecond`, the plot area = its grid's box), as a user would.
 */
async function dragAcross(page: Page, testId: string, from: number, to: number, lastSecond: number) {
  const plot = page.getByTestId(testId).locator(".recharts-cartesian-grid").first();
  await plot.scrollIntoViewIfNeeded(); // the mouse reaches only what is on screen
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

/** The URL's from/to once a drag has set them. */
async function zoomOfUrl(page: Page) {
  await page.waitForURL(/[?&]from=\d+.*[?&]to=\d+/, { timeout: 30_000 });
  const q = new URL(page.url()).searchParams;
  return { from: Number(q.get("from")), to: Number(q.get("to")) };
}

/** The points of a path's "M x,y L x,y ..." commands. */
const pathXy = (d: string) => [...d.matchAll(/[ML]\s*(-?[\d.]+)[ ,](-?[\d.]+)/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]) }));

describe("charts of long runs", () => {
  it("draws four 30-minute runs with at most a few hundred points a series and zooms into 2 minutes at 1 s", async () => {
    // The page's HTML stays small: the series are what the charts draw, not every bucket of every run.
    // Bytes sent, as bench:compare counts them.
    const html = new Uint8Array(await (await fetch(`${web}/compare?${query()}`)).arrayBuffer());
    // 150 KB until the page carried the verdict card, the relative columns and a banner per group (165 KB measured
    // after slimming its markup; docs/performance.md says why the budget moved).
    expect(html.byteLength).toBeLessThan(170_000);

    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${web}/compare?${query()}`);
    await page.getByTestId("cmp-view").waitFor();

    // Whole runs: 10 s buckets, every series drawn, none with more points than the budget.
    for (const chart of ["cmp-chart-latency", "cmp-chart-goodput"]) {
      expect(await attr(page, chart, "data-resolution-seconds")).toBe(10);
      const lines = await drawnPaths(page, chart, "path.recharts-line-curve", 4); // latency: the picked quantile
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
    // One row per metric for each of the three runs against the first.
    expect(basisCells.length).toBe(3 * METRIC_CATALOG.length);
    for (const b of basisCells) expect(b).not.toMatch(/moving-block bootstrap/);

    // A real drag across the latency chart over about 2 minutes (1170-1290 s of 0-1790 s) zooms in: 1 s resolution.
    await dragAcross(page, "cmp-chart-latency", 1170, 1290, 1790);
    const dragged = await zoomOfUrl(page);
    expect(Math.abs(dragged.from - 1170)).toBeLessThanOrEqual(20);
    expect(Math.abs(dragged.to - 1290)).toBeLessThanOrEqual(20);
    await page.getByTestId("cmp-zoom").first().waitFor();
    await expect.poll(() => attr(page, "cmp-chart-latency", "data-resolution-seconds"), { timeout: 30_000 }).toBe(1);
    expect(await attr(page, "cmp-chart-latency", "data-series-points")).toBe(dragged.to - dragged.from);

    // Exactly the 2 minutes around the slow minute: every second, and the spike at full height.
    await page.goto(`${web}/compare?${query()}&from=1170&to=1290`);
    await page.getByTestId("cmp-zoom").first().waitFor();
    expect(await attr(page, "cmp-chart-latency", "data-resolution-seconds")).toBe(1);
    expect(await attr(page, "cmp-chart-latency", "data-series-points")).toBe(120);
    const zoomed = await drawnPaths(page, "cmp-chart-latency", "path.recharts-line-curve", 4);
    expect(zoomed).toEqual(Array(4).fill(120));
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

    // Its cloud platform's series (one point a minute) is drawn as steps at that resolution, not a line through seconds it does not have.
    expect(await attr(page, "chart-cpu", "data-resolution-seconds")).toBe(60);
    expect(await page.getByTestId("run-infra").textContent()).toContain("one point every 60 s");
    const cpuPaths = await drawnPaths(page, "chart-cpu", "path.recharts-line-curve", 1);
    expect(cpuPaths[0]).toBe(2 * 30 - 1); // stepAfter: a horizontal and a vertical segment per minute
    const cpu = pathXy((await page.getByTestId("chart-cpu").locator("path.recharts-line-curve").getAttribute("d")) ?? "");
    const segments = cpu.slice(1).map((p, i) => ({ dx: p.x - cpu[i]!.x, dy: p.y - cpu[i]!.y }));
    const horizontal = segments.filter((g) => Math.abs(g.dy) < 0.01 && g.dx > 1);
    expect(horizontal.length).toBe(29);
    expect(segments.every((g) => Math.abs(g.dy) < 0.01 || Math.abs(g.dx) < 0.01)).toBe(true);

    // A real drag across the p95 chart over about 2 minutes zooms the run page to 1 s.
    await dragAcross(page, "chart-p95", 1170, 1290, 1790);
    const dragged = await zoomOfUrl(page);
    expect(Math.abs(dragged.from - 1170)).toBeLessThanOrEqual(20);
    expect(Math.abs(dragged.to - 1290)).toBeLessThanOrEqual(20);
    await page.getByTestId("run-zoom").waitFor();
    expect(await attr(page, "chart-p95", "data-resolution-seconds")).toBe(1);

    await page.goto(`${web}/runs/${ids[1]}?from=1170&to=1290`);
    await page.getByTestId("run-zoom").waitFor();
    expect(await attr(page, "chart-p95", "data-resolution-seconds")).toBe(1);
    expect(await attr(page, "chart-p95", "data-points")).toBe(120);
    await page.close();
  });
});
