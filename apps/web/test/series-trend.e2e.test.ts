// The trend page (issue 36, "performance over time"), in a real browser against the built web app. Twelve k6 result
// files this test writes (60 s each, every request's latency chosen), imported by the real `opsbench import k6` with
// --series and provenance: commits c01..c12, p95 10% higher from c08 on, c04's run dropping a tenth of its
// iterations (flagged, so invalid). The API lists the series and answers its points; the page shows the 12 points,
// the invalid one apart, the change at c08 with its commit range c07..c08 and its before/after comparison, and two
// picked points open their comparison. Screenshot: $OPSBENCH_SHOTS_DIR (or /tmp/shots36)/series-trend-1280.png.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SeriesPointsAnswer } from "@opsbench/api";
import { launchBrowser, openTestStack, testWebUrl } from "../../../tests/helpers";
import { importK6Requests, type WrittenLoadSecond, type WrittenRequest } from "../../../tests/k6-result-files";

const web = testWebUrl();
let browser: Browser;
let stack: Awaited<ReturnType<typeof openTestStack>>;
let dir: string;
const SHOTS = process.env.OPSBENCH_SHOTS_DIR ?? "/tmp/shots36";
const T0 = Date.UTC(2026, 10, 20, 6, 0, 0);
const SERIES = "trend-checkout";
const sha = (i: number) => `c${String(i).padStart(2, "0")}a0b1c2d3e4f5`;
const short = (i: number) => sha(i).slice(0, 7);
const ids: string[] = [];

/** 60 s, 16 to 24 requests a second (a fixed pattern), latencies base x 0.8..1.2. */
function requests(base: number, seed: number): WrittenRequest[] {
  const out: WrittenRequest[] = [];
  let x = seed * 7919;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  for (let s = 0; s < 60; s++) {
    const n = 16 + Math.floor(next() * 9);
    for (let k = 0; k < n; k++) out.push({ atMs: s * 1000 + Math.floor((k * 1000) / n), ms: base * (0.8 + 0.4 * next()), ok: true });
  }
  return out;
}

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  browser = await launchBrowser();
  await mkdir(SHOTS, { recursive: true });
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-series-"));
  for (let i = 1; i <= 12; i++) {
    const rs = requests(i >= 8 ? 110 : 100, i);
    // c04: a tenth of its iterations dropped (the load generator fell behind): flagged, so drawn apart.
    const load: WrittenLoadSecond[] | undefined =
      i === 4 ? Array.from({ length: 60 }, (_, s) => ({ second: s, iterations: 20, dropped: 3, vus: 5 })) : undefined;
    ids.push(
      await importK6Requests(dir, `trend-${i}`, rs, {
        t0: T0 + i * 3600_000,
        ...(load ? { load } : {}),
        importArgs: ["--series", SERIES, "--commit", sha(i), "--branch", "main"],
      }),
    );
  }
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function open(url: string, width = 1280): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(`${web}${url}`);
  return page;
}

describe("a series' trend", () => {
  it("is listed by the API, and its points carry the runs, the invalid one and the change at c08", async () => {
    const list = (await (await fetch(`${web}/api/v1/series`)).json()) as { items: Array<{ key: string; runs: number; kind: string }> };
    expect(list.items.find((s) => s.key === SERIES)).toMatchObject({ runs: 12, kind: "named" });
    const res = await fetch(`${web}/api/v1/series/${SERIES}/points`);
    expect(res.status).toBe(200);
    const view = (await res.json()) as SeriesPointsAnswer;
    expect(view.points.map((p) => p.id)).toEqual(ids);
    expect(view.points.filter((p) => !p.valid).map((p) => p.commit)).toEqual([sha(4)]);
    for (const p of view.points) expect(p.latency.low, p.latency.note ?? "").not.toBeNull();
    const change = view.changes.find((c) => c.metric === "latency");
    expect(change).toMatchObject({ index: 7, commits: { lastBefore: sha(7), firstAfter: sha(8) } });
    expect(change!.relative).toBeGreaterThan(0.05);
    expect(change!.relative).toBeLessThan(0.15);
  });

  it("shows 12 points with their bars, the invalid one apart, and the change with its commit range", async () => {
    const page = await open(`/series/${SERIES}`);
    await page.getByTestId("trend-points").waitFor();
    expect(await page.getByTestId("trend-point").count()).toBe(12);
    expect(await page.locator('[data-testid="trend-point"][data-valid="false"]').count()).toBe(1);
    expect(await page.locator('[data-testid="trend-point"][data-valid="false"]').getAttribute("data-run-id")).toBe(ids[3]);
    const chart = page.getByTestId("trend-latency");
    expect(await chart.getAttribute("data-points")).toBe("12");
    await chart.locator(".recharts-scatter-symbol").first().waitFor();
    expect(await chart.locator(".recharts-scatter-symbol").count()).toBe(12);
    // Eleven valid runs drawn solid, one hollow (white fill, grey stroke); each run with an interval has its bar.
    expect(await chart.locator('.recharts-scatter-symbol circle[fill="white"]').count()).toBe(1);
    expect(await chart.locator(".recharts-errorBar").count()).toBeGreaterThanOrEqual(12);
    await expect.poll(() => chart.getByTestId("trend-latency-invalid").textContent()).toContain("1 invalid");
    await expect.poll(() => page.getByTestId("trend-legend").textContent()).toContain("invalid run");

    // The change: its marker on the latency chart, its line naming the commit range, its before/after comparison.
    expect(await chart.locator(".recharts-reference-line").count()).toBe(1);
    // Its label (recharts draws a line's label in the chart's label layer, not inside the line's group).
    expect(await chart.locator("svg.recharts-surface").first().textContent()).toContain(`${short(7)}..${short(8)}`);
    const line = page.locator('[data-testid="trend-change"][data-metric="latency"]');
    expect(await line.getByTestId("trend-change-commits").textContent()).toBe(`${short(7)}..${short(8)}`);
    const before = new URL(`${web}${await line.getByTestId("trend-change-compare").getAttribute("href")}`);
    expect(before.pathname).toBe("/compare");
    expect(before.searchParams.getAll("g")).toEqual([
      `Before:${[1, 2, 4, 5, 6].map((k) => ids[k]).join(",")}`,
      `After:${[7, 8, 9, 10, 11].map((k) => ids[k]).join(",")}`,
    ]);
    await page.screenshot({ path: path.join(SHOTS, "series-trend-1280.png"), fullPage: true });

    // By commit: the x axis names the commits (c01 is in no change's label), where by time it gave dates.
    const svgText = () => chart.locator("svg.recharts-surface").first().textContent();
    expect(await svgText()).toContain("11-20");
    expect(await svgText()).not.toContain(short(1));
    await page.getByLabel("commit").check();
    await expect.poll(svgText).toContain(short(1));
    expect(await svgText()).not.toContain("11-20");
    await page.screenshot({ path: path.join(SHOTS, "series-trend-by-commit-1280.png"), fullPage: true });
    await page.close();
  });

  it("opens the comparison of two picked runs, and of a change's two sides", async () => {
    const page = await open(`/series/${SERIES}`);
    const picks = page.getByTestId("trend-pick");
    await picks.first().waitFor();
    // A click before React attached its handlers is lost: tick until the page counts it.
    await expect
      .poll(async () => {
        if (!(await picks.nth(0).isChecked())) await picks.nth(0).click();
        return page.getByTestId("trend-picked").getAttribute("data-picked");
      })
      .toBe("1");
    // The second pick by a click on the chart's point of c10.
    const symbol = page.getByTestId("trend-latency").locator(".recharts-scatter-symbol").nth(8);
    await symbol.click();
    await expect.poll(() => page.getByTestId("trend-picked").getAttribute("data-picked")).toBe("2");
    const href = await page.getByTestId("trend-pair-compare").getAttribute("href");
    const q = new URL(`${web}${href}`).searchParams.getAll("g");
    expect(q).toEqual([`${short(1)}:${ids[0]}`, `${short(10)}:${ids[9]}`]);
    await page.getByTestId("trend-pair-compare").click();
    await page.waitForURL(/\/compare\?/);
    await expect.poll(() => page.locator("body").textContent(), { timeout: 60_000 }).toContain(short(10));

    const again = await open(`/series/${SERIES}`);
    await again.locator('[data-testid="trend-change"][data-metric="latency"]').getByTestId("trend-change-compare").click();
    await again.waitForURL(/\/compare\?/);
    await expect.poll(() => again.locator("body").textContent(), { timeout: 60_000 }).toContain("After");
    await page.close();
    await again.close();
  });

  it("is linked from its runs' page and from the runs list, and listed on /series", async () => {
    const run = await open(`/runs/${ids[7]}`);
    expect(await run.getByTestId("run-series-link").getAttribute("href")).toBe(`/series/${SERIES}`);
    await run.close();
    const home = await open("/");
    const row = home.locator(`[data-testid="run-row"][data-run-id="${ids[11]}"]`);
    expect(await row.getByTestId("run-row-series").getAttribute("href")).toBe(`/series/${SERIES}`);
    await home.close();
    const list = await open("/series");
    expect(await list.locator(`[data-testid="series-row"][data-series-key="${SERIES}"]`).count()).toBe(1);
    await list.close();
  });
});

describe("the home page's runs list", () => {
  it("pages through more runs than one page shows: Older runs, then Newest runs back", async () => {
    // 60 more runs, final (FAILED) so that no worker takes them up: 72 in all with the imports.
    await stack.db.run.createMany({
      data: Array.from({ length: 60 }, (_, i) => ({
        workspaceId: stack.scope.workspaceId,
        source: "k6-import",
        name: `paged-${i}`,
        status: "FAILED" as const,
        error: "made by the test",
        finishedAt: new Date(),
      })),
    });
    const total = await stack.db.run.count({ where: { workspaceId: stack.scope.workspaceId } });
    expect(total).toBeGreaterThan(70);
    const page = await open("/");
    const rowIds = () => page.getByTestId("run-row").evaluateAll((els) => els.map((e) => e.getAttribute("data-run-id")));
    const first = await rowIds();
    expect(first).toHaveLength(50);
    await page.getByTestId("runs-older").click();
    await page.waitForURL(/cursor=/);
    const second = await rowIds();
    expect(second).toHaveLength(total - 50);
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    // Together, every run once, newest first as the API pages them.
    const api = async (cursor?: string) =>
      (await (await fetch(`${web}/api/v1/runs?limit=50${cursor ? `&cursor=${cursor}` : ""}`)).json()) as {
        items: Array<{ id: string }>;
        nextCursor: string | null;
      };
    const p1 = await api();
    const p2 = await api(p1.nextCursor!);
    expect([...first, ...second]).toEqual([...p1.items, ...p2.items].map((r) => r.id));
    expect(p2.nextCursor).toBeNull();
    expect(await page.getByTestId("runs-older").count()).toBe(0);
    await page.getByTestId("runs-newest").click();
    await page.waitForURL((u) => !u.search.includes("cursor"));
    expect(await rowIds()).toEqual(first);
    await page.close();
  });
});
