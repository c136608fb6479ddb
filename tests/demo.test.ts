// The first five minutes: `npm run demo` as a new user runs it (set-up included),
// at the smallest time scale it takes (0.05: 6 s runs) so the suite stays quick. Checks what the user sees
// in the terminal (few lines, ending on the comparison's address), what it leaves
// in the database (one SUCCEEDED study of 2 targets x 1 workload x 2 repetitions,
// every run priced, nothing QUEUED), and the comparison page at that address.
// The page's screenshot goes to .data/screenshots/ to be looked at; the README's picture comes from a real
// 2-minute demo (scripts/screenshot.mjs), where the charts have enough points to show the spike.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_FUNCTION, DEMO_SERVICE, DEMO_STUDY_NAME, DEMO_WORKLOAD } from "@opsbench/core";
import { loadRunView } from "@opsbench/db";
import { clickUntilVisible, launchBrowser, openTestStack, testDatabaseUrl, testRedisUrl, testWebUrl } from "./helpers";

const root = path.resolve(import.meta.dirname, "..");
const web = testWebUrl();
/** `npm run demo` prints its own header (a blank line, "> opsbench@ demo", "> the script", a blank line) before the script's output. */
const NPM_HEADER_LINES = 4;

/** Runs the `demo` script of package.json as `npm run demo -- ARGS` would, against the test stack; all output in order. */
function runDemoScript(args: string): Promise<{ code: number; output: string; stdout: string }> {
  const script: string = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts.demo;
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", `${script} ${args}`], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: testDatabaseUrl(),
        REDIS_URL: testRedisUrl(),
        // The test stack's web app and worker are already up: the demo uses them, as it would a running install.
        OPSBENCH_WEB_PORT: new URL(web).port,
      },
    });
    let output = "";
    let stdout = "";
    child.stdout.on("data", (d) => {
      output += d;
      stdout += d;
    });
    child.stderr.on("data", (d) => (output += d));
    child.on("exit", (code) => resolve({ code: code ?? -1, output, stdout }));
  });
}

let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;
let demo: { code: number; output: string; stdout: string };
let started: Date;

beforeAll(async () => {
  expect(web, "the demo test needs the web app (do not set TEST_SKIP_WEB)").not.toBe("");
  stack = await openTestStack();
  browser = await launchBrowser();
  started = new Date();
  demo = await runDemoScript("--no-serve --time-scale 0.05");
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe("npm run demo", () => {
  it("exits 0, says it all in under 60 lines, and ends on the comparison's address and a three-line verdict", () => {
    expect(demo.code, demo.output).toBe(0);
    const lines = demo.output.trimEnd().split("\n");
    expect(lines.length + NPM_HEADER_LINES, demo.output).toBeLessThan(60);
    // One line per set-up step, none of the tools' own output.
    expect(demo.output).toMatch(/^setup: ready in [\d.]+ s/m);
    expect(demo.output).not.toMatch(/go: downloading|added \d+ packages|Creating an optimized production build/);
    const out = demo.stdout.trimEnd().split("\n");
    expect(out.at(-1)).toMatch(new RegExp(`^comparison: ${web}/compare\\?study=[0-9a-f-]{36}$`));
    expect(out.slice(-4, -1).map((l) => l.trim().split(/\s+/)[0])).toEqual(["latency", "scaling", "cost"]);
    expect(out.at(-2)).toContain(DEMO_SERVICE);
    expect(out.at(-2)).toContain(DEMO_FUNCTION);
    expect(out.at(-2)).not.toContain("not priced");
  });

  it("leaves one SUCCEEDED study of 2 targets x 1 workload x 2 repetitions, every run priced, nothing QUEUED", async () => {
    const studies = (await stack.scope.studies.list()).filter((s) => new Date(s.createdAt) >= started);
    expect(studies.map((s) => s.name)).toEqual([DEMO_STUDY_NAME]);
    const view = await stack.scope.studies.view(studies[0]!.id);
    expect(view.status).toBe("SUCCEEDED");
    expect(view.cells.map((c) => `${c.target.name} x ${c.workload.name}`).sort()).toEqual(
      [`${DEMO_FUNCTION} x ${DEMO_WORKLOAD}`, `${DEMO_SERVICE} x ${DEMO_WORKLOAD}`].sort(),
    );
    expect(view.repetitions).toBe(2);
    expect(view.runs.map((r) => r.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
    // Interleaved: the second round starts only after both targets ran once.
    expect(new Set(view.runs.slice(0, 2).map((r) => r.cell)).size).toBe(2);
    for (const r of view.runs) {
      const cost = (await loadRunView(stack.db, r.id)).summary?.cost;
      expect(cost?.total, `run ${r.id} priced`).toBeGreaterThan(0);
      expect(cost?.unit).toBe("EUR-cent");
    }
    const left = (await stack.scope.studies.list()).filter((s) => s.status === "QUEUED" && new Date(s.createdAt) >= started);
    expect(left).toEqual([]);
  });

  it("the printed address shows both targets' latency and replica charts, their cost per 1,000 requests, and a working share link", async () => {
    const address = demo.stdout
      .trimEnd()
      .split("\n")
      .at(-1)!
      .replace(/^comparison: /, "");
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(address, { waitUntil: "networkidle" });
    // One time panel: its legend names the groups once for every row (latency, goodput, replicas...).
    const legend = await page.getByTestId("cmp-time-legend").textContent();
    for (const target of [DEMO_SERVICE, DEMO_FUNCTION]) expect(legend, `the time panel's legend names ${target}`).toContain(target);
    for (const chart of ["cmp-chart-latency", "cmp-chart-goodput", "cmp-chart-infra"]) {
      const card = page.getByTestId(chart);
      expect(Number(await card.getAttribute("data-points")), chart).toBeGreaterThan(0);
    }
    expect(await page.getByTestId("cmp-cost-table").getAttribute("data-cost-available")).toBe("true");
    for (const target of [DEMO_SERVICE, DEMO_FUNCTION]) {
      const cost = await page.locator(`[data-testid=cost-cell][data-target="${target}"]`).first().getAttribute("data-cost");
      expect(Number(cost), `${target}'s cost per 1,000 requests`).toBeGreaterThan(0);
    }
    expect(await page.getByTestId("cmp-chart-break-even").count()).toBe(1);
    mkdirSync(path.join(root, ".data/screenshots"), { recursive: true });
    await page.screenshot({ path: path.join(root, ".data/screenshots/demo-comparison-time-scale-0.05.png"), fullPage: true });

    await clickUntilVisible(page.getByTestId("share-button"), page.getByTestId("share-create"));
    await page.getByTestId("share-create").click();
    const shareUrl = await page.getByTestId("share-url").inputValue();
    await page.close();
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const shared = await ctx.newPage();
    const res = await shared.goto(shareUrl, { waitUntil: "networkidle" });
    expect(res?.status()).toBe(200);
    expect(await shared.getByTestId("cmp-view").getAttribute("data-mode")).toBe("share");
    const text = await shared.getByTestId("cmp-view").textContent();
    for (const target of [DEMO_SERVICE, DEMO_FUNCTION]) expect(text).toContain(target);
    await ctx.close();
  });
});
