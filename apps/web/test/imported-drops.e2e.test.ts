// Dropped iterations of imported k6 files on the pages (issue 34, finding 6), in a real browser against the built
// web app: files written here with known iterations and dropped_iterations counters, imported by the real
// `opsbench import k6`. The run page shows the load totals the test wrote and the drop share; the compare page
// says which run was judged within the 1% tolerance and which was left out, each with its share.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openTestStack, testWebUrl } from "../../../tests/helpers";
import { importK6Requests, type WrittenLoadSecond, type WrittenRequest } from "../../../tests/k6-result-files";

const web = testWebUrl();
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;
let dir: string;
const T0 = Date.UTC(2026, 10, 27, 4, 0, 0);
const SECONDS = 20;
const ids: Record<string, string> = {};

/** 20 s at 5 req/s, every request a success; `slow` ms added. */
const samples = (slow: number): WrittenRequest[] =>
  Array.from({ length: SECONDS * 5 }, (_, i) => ({ atMs: i * 200, ms: 40 + (i % 17) + slow, ok: true }));
/** 100 iterations a second (2,000 in all), and `dropped` iterations in the first second. */
const counters = (dropped: number): WrittenLoadSecond[] =>
  Array.from({ length: SECONDS }, (_, second) => ({ second, iterations: 100, dropped: second === 0 ? dropped : 0 }));

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  browser = await launchBrowser();
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-drops-page-"));
  const files: Record<string, { slow: number; dropped: number }> = {
    a1: { slow: 0, dropped: 0 },
    a2: { slow: 0, dropped: 0 },
    b1: { slow: 10, dropped: 10 }, // 10 of 2,010 planned: 0.50%, judged
    b2: { slow: 10, dropped: 100 }, // 100 of 2,100: 4.76%, left out
  };
  for (const [name, f] of Object.entries(files))
    ids[name] = await importK6Requests(dir, `drops-page-${name}`, samples(f.slow), { t0: T0, load: counters(f.dropped) });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("dropped iterations of an import on the pages", () => {
  it("the run page shows the file's iterations, its dropped iterations with their share, and the flag", async () => {
    const page = await browser.newPage();
    await page.goto(`${web}/runs/${ids.b1}`);
    expect(await page.getByTestId("summary-iterations").textContent()).toBe("2000");
    expect(await page.getByTestId("summary-dropped-iterations").textContent()).toBe("10");
    expect(await page.getByTestId("summary-dropped-iterations").locator("..").textContent()).toContain("(0.50% of planned)");
    const flag = page.getByTestId("run-flags").locator('[data-flag="dropped-iterations"]');
    expect(await flag.textContent()).toMatch(
      /dropped iterations 0\.50%: 10 of 2,010 iterations dropped \(0\.50%\).*within the 1% tolerance/,
    );
    await page.close();
  });

  it("the compare page judges the run within the tolerance and leaves out the one over it, each with its share", async () => {
    const page = await browser.newPage();
    await page.goto(`${web}/compare?g=A:${ids.a1},${ids.a2}&g=B:${ids.b1},${ids.b2}`);
    const note = page.getByTestId("cmp-verdict-exclusions");
    const excluded = note.getByTestId("cmp-excluded-run");
    expect(await excluded.getAttribute("data-run-id")).toBe(ids.b2);
    expect(await excluded.textContent()).toContain("4.76% of iterations dropped, over the 1% tolerance");
    const tolerated = note.getByTestId("cmp-tolerated-run");
    expect(await tolerated.getAttribute("data-run-id")).toBe(ids.b1);
    expect(Number(await tolerated.getAttribute("data-drop-share"))).toBeCloseTo(10 / 2010, 12);
    expect(await note.getByTestId("cmp-tolerated-drops").textContent()).toContain("within the 1% tolerance");
    await page.close();
  });
});
