// The comparison's answer first (issue 35, findings 1 and 3), in a real browser against the built web app: the
// verdict card's four lines (latency, throughput, failures, cost) and its confidence line on the compare page, the
// printable report and a share link's page, for k6 files this test writes (3 runs a side, imported by the real
// `opsbench import k6`); and one run a side, where the card shows the observed relative difference, labelled
// "observed, not a verdict", computed here from the latencies the test wrote; and "repeat" on two real runs (local
// Taewa targets run by the worker): one more run per group, then the comparison with them. Screenshots:
// /tmp/shots35/h2-compare-*.png.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MetricVerdict } from "@opsbench/core";
import { launchBrowser, openTestStack, shortRamp, taewaTarget, testWebUrl } from "../../../tests/helpers";
import { exactQuantile, importK6Requests, type WrittenRequest } from "../../../tests/k6-result-files";

const web = testWebUrl();
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;
let dir: string;
const T0 = Date.UTC(2026, 10, 29, 4, 0, 0);
const ids: Record<"a" | "b" | "one" | "two", string[]> = { a: [], b: [], one: [], two: [] };
const written: Record<"a" | "b" | "one" | "two", WrittenRequest[][]> = { a: [], b: [], one: [], two: [] };

/** `seconds` at 10 req/s; latencies base..base+39 ms; every `failEvery`-th request a 503 (0: none). */
const requests = (seconds: number, base: number, failEvery: number): WrittenRequest[] =>
  Array.from({ length: seconds * 10 }, (_, i) => ({
    atMs: i * 100,
    ms: base + ((i * 7) % 40),
    ok: failEvery === 0 || i % failEvery !== 0,
  }));

beforeAll(async () => {
  stack = await openTestStack();
  browser = await launchBrowser();
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-card-"));
  await mkdir("/tmp/shots35", { recursive: true });
  const add = async (side: keyof typeof ids, name: string, rs: WrittenRequest[], t0: number) => {
    written[side].push(rs);
    ids[side].push(await importK6Requests(dir, name, rs, { t0 }));
  };
  // A: three runs at 40..79 ms (+0, 3, 6), no failures; B: 60..99 ms (+0, 2, 4), a 503 every 40th, 50th, 60th request.
  for (const [i, slow] of [0, 3, 6].entries()) await add("a", `card-a${i}`, requests(30, 40 + slow, 0), T0 + i * 60_000);
  for (const [i, [slow, failEvery]] of [
    [0, 40],
    [2, 50],
    [4, 60],
  ].entries())
    await add("b", `card-b${i}`, requests(30, 60 + slow!, failEvery!), T0 + (3 + i) * 60_000);
  // One run a side, 119 s each: about 300 ms against about 1,400 ms (the p95 314.85 vs 1,416.75 ms).
  await add("one", "card-one", requests(119, 290, 0), T0 + 10 * 60_000);
  await add("two", "card-two", requests(119, 1390, 0), T0 + 13 * 60_000);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const ok = (rs: WrittenRequest[][]) => rs.flat().filter((r) => r.ok);
/** The test's own relative difference, as the card writes it: "+12.3%", "−4.0%". */
const said = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(Math.abs(x) < 10 ? 1 : 0)}%`;
const parsePct = (s: string) => Number(s.replace("−", "-").replace(/[+%]/g, "").split(" ")[0]) / 100;

/** The card's lines, by their key: [label, winner, relative, interval, observed, how sure]. */
async function cardLines(page: Page): Promise<Record<string, string[]>> {
  const card = page.getByTestId("verdict-answer");
  await card.waitFor();
  const rows = await card
    .getByTestId("verdict-answer-line")
    .evaluateAll((els) =>
      els.map((e) => [e.getAttribute("data-line") ?? "", ...[...e.querySelectorAll("td")].map((td) => td.textContent ?? "")]),
    );
  return Object.fromEntries(rows.map(([key, ...cells]) => [key!, cells]));
}

/** The four lines every view must show for A vs B, checked against what the test wrote and the API's p95 verdict. */
async function expectFourLines(page: Page, p95: MetricVerdict) {
  const lines = await cardLines(page);
  expect(Object.keys(lines)).toEqual(["p95", "req/s", "failure share", "cost"]);
  // Latency: the observed relative difference of the pooled successful p95s the test computes (the page's histogram is
  // within 1% of a value, so within 2 points of the ratio), and the verdict's own relative interval.
  const [pa, pb] = [ok(written.a), ok(written.b)].map((rs) =>
    exactQuantile(
      rs.map((r) => r.ms),
      0.95,
    ),
  );
  expect(Math.abs(parsePct(lines.p95![2]!) - (pb! / pa! - 1))).toBeLessThan(0.02);
  expect(lines.p95![3]).toBe(`95% CI ${said(p95.low! / p95.baselineMean!)} to ${said(p95.high! / p95.baselineMean!)}`);
  expect(lines.p95![5]).toMatch(/^(significant|equivalent|inconclusive): /);
  // Failures: B failed 8, 6 and 5 of 300 (its 503s), A none: the failure share observed, 0% → 19/900.
  const failed = written.b.flat().filter((r) => !r.ok).length;
  expect(failed).toBe(8 + 6 + 5);
  expect(lines["failure share"]![4]).toBe(`0.00% → ${((100 * failed) / 900).toFixed(2)}%`);
  expect(lines["failure share"]![2]).toMatch(/^odds ×[0-9.]+$/);
  expect(lines["failure share"]![3]).toMatch(/^95% CI odds ×[0-9.]+ to odds ×[0-9.]+$/);
  expect(lines["req/s"]![5]).toMatch(/^descriptive: /);
  // Cost: imported runs have no cost model: said so, nobody "cheaper".
  expect(lines.cost![1]).toBe("not compared");
  expect(lines.cost![5]).toContain("not priced");
  // Confidence: the runs and what one more round buys, from the verdict's power.
  const confidence = (await page.getByTestId("verdict-answer-confidence").textContent()) ?? "";
  const m = confidence.match(/^Confidence: 3 vs 3 runs .*one more round \(4 vs 4\): power (\d+)% → (\d+)%/);
  expect(m, confidence).not.toBeNull();
  expect(Number(m![1])).toBe(Math.round(p95.power! * 100));
  expect(Number(m![2])).toBeGreaterThanOrEqual(Number(m![1]));
}

describe("the verdict card: the answer first", () => {
  it("compare page, printable report and share view: four lines and the confidence line, the card first", async () => {
    const query = `g=A:${ids.a.join(",")}&g=B:${ids.b.join(",")}`;
    const api = (await (await fetch(`${web}/api/v1/comparisons?${query}`)).json()) as { verdicts: MetricVerdict[] };
    const p95 = api.verdicts.find((v) => v.metric === "p95" && v.role === "primary")!;
    for (const width of [1280, 1920]) {
      const page = await browser.newPage({ viewport: { width, height: 1000 } });
      await page.goto(`${web}/compare?${query}`);
      await expectFourLines(page, p95);
      // The card comes before the verdict table, the summary and the charts.
      const order = await page
        .getByTestId("cmp-view")
        .locator('[data-testid="verdict-answer"], [data-testid="cmp-verdicts"], [data-testid="cmp-summary"]')
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-testid")));
      expect(order).toEqual(["verdict-answer", "cmp-verdicts", "cmp-summary"]);
      // The verdict table's relative column and the summary's relative row.
      expect(await page.getByTestId("verdict-p95").getByTestId("verdict-relative").textContent()).toMatch(/^[+−][0-9.]+% \[/);
      expect(await page.getByTestId("cmp-relative-row").count()).toBe(1);
      // Imported runs have no target: no repeat, and why.
      expect(await page.getByTestId("verdict-repeat-unavailable").textContent()).toContain("imported");
      await page.screenshot({ path: `/tmp/shots35/h2-compare-${width}.png`, fullPage: true });
      await page.close();
    }
    const report = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await report.goto(`${web}/compare/report?${query}`);
    await expectFourLines(report, p95);
    expect(await report.getByTestId("verdict-repeat").count()).toBe(0);
    await report.close();

    const res = await fetch(`${web}/api/v1/shares`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        kind: "comparison",
        subject: {
          groups: [
            { label: "A", runIds: ids.a },
            { label: "B", runIds: ids.b },
          ],
        },
      }),
    });
    expect(res.status).toBe(201);
    const link = (await res.json()) as { url: string };
    const ctx = await browser.newContext();
    const shared = await ctx.newPage();
    await shared.goto(link.url);
    await expectFourLines(shared, p95);
    expect(await shared.getByTestId("verdict-repeat").count()).toBe(0);
    await ctx.close();
  });

  it("one run a side: the observed values and relative difference, labelled observed, not a verdict, with why", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${web}/compare?g=one:${ids.one[0]}&g=two:${ids.two[0]}`);
    const lines = await cardLines(page);
    const [pa, pb] = [ok(written.one), ok(written.two)].map((rs) =>
      exactQuantile(
        rs.map((r) => r.ms),
        0.95,
      ),
    );
    const [relative, observedWord] = lines.p95![2]!.split(" ");
    expect(observedWord).toBe("observed");
    expect(Math.abs(parsePct(relative!) - (pb! / pa! - 1))).toBeLessThan(0.02);
    expect(lines.p95![1]).toBe("one lower (observed, not a verdict)");
    expect(lines.p95![5]).toBe("observed, not a verdict (one run a side)");
    const why = (await page.getByTestId("verdict-answer-why").textContent()) ?? "";
    expect(why).toContain("one run a side has no run-to-run spread");
    expect(why).toContain("2 or more runs a side, or a stated run-to-run CV");
    expect(await page.getByTestId("verdict-answer-confidence").textContent()).toContain("1 vs 1 run");
    // The verdict table's relative column says the same, labelled observed, where the row has no interval.
    expect(await page.getByTestId("verdict-p95").getByTestId("verdict-relative").textContent()).toBe(lines.p95![2]);
    // 119 s runs are never told they lack 30 s: the all-responses percentile says it is a whole-run value.
    const allResponses = (await page.getByTestId("verdict-p95-all-responses-").textContent()) ?? "";
    expect(allResponses).not.toContain("at least 30 s");
    expect(allResponses).toContain("whole-run value");
    await page.screenshot({ path: "/tmp/shots35/h2-compare-single-1280.png", fullPage: true });
    await page.close();
  });
});

const post = async (url: string, body: unknown) => {
  const res = await fetch(`${web}${url}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string };
};

/** Waits until every run has finished; their statuses. */
async function finished(runIds: string[]): Promise<string[]> {
  const until = Date.now() + 300_000;
  for (;;) {
    const runs = await stack.db.run.findMany({ where: { id: { in: runIds } }, select: { status: true } });
    if (runs.length === runIds.length && runs.every((r) => ["SUCCEEDED", "FAILED", "ABORTED"].includes(r.status)))
      return runs.map((r) => r.status);
    if (Date.now() > until) throw new Error(`runs ${runIds.join(", ")} still running`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe("repeat: one more run per group", () => {
  it("queues one run of each group's target and workload, shows their progress and opens the comparison with them", async () => {
    for (const t of [taewaTarget("card-one", { replicas: 1 }), taewaTarget("card-two", { replicas: 1 })]) await post("/api/v1/targets", t);
    await post("/api/v1/workloads", shortRamp("card-tiny", { vus: 2, holdSeconds: 4 }));
    const first = [
      (await post("/api/v1/runs", { target: "card-one", workload: "card-tiny" })).id,
      (await post("/api/v1/runs", { target: "card-two", workload: "card-tiny" })).id,
    ];
    expect(await finished(first)).toEqual(["SUCCEEDED", "SUCCEEDED"]);
    const before = await stack.db.run.count();
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${web}/compare?g=one:${first[0]}&g=two:${first[1]}`);
    await page.getByTestId("verdict-repeat").click();
    const progress = page.getByTestId("verdict-repeat-progress");
    await progress.waitFor();
    const started = await progress
      .getByTestId("verdict-repeat-run")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-run-id") ?? ""));
    expect(started).toHaveLength(2);
    expect(await stack.db.run.count()).toBe(before + 2);
    // Each new run is of its group's target and workload.
    const made = await stack.db.run.findMany({ where: { id: { in: started } }, include: { target: true, workload: true } });
    expect(Object.fromEntries(made.map((r) => [r.id, `${r.target?.name} x ${r.workload?.name}`]))).toEqual({
      [started[0]!]: "card-one x card-tiny",
      [started[1]!]: "card-two x card-tiny",
    });
    // Once both have finished, the page opens the comparison with them added: two runs a side.
    await page.waitForURL((u) => u.searchParams.getAll("g").every((g) => g.split(",").length === 2), { timeout: 300_000 });
    expect(new URL(page.url()).searchParams.getAll("g")).toEqual([`one:${first[0]},${started[0]}`, `two:${first[1]},${started[1]}`]);
    expect(await page.getByTestId("verdict-answer-confidence").textContent()).toMatch(/^Confidence: 2 vs 2 runs/);

    // All or nothing: with room for one more run today, the first group's run starts and the second's is refused; the
    // first is then deleted, the card says why, and no run is left.
    const limits = (await (await fetch(`${web}/api/v1/limits`)).json()) as { maxRunsPerDay: number };
    const today = await stack.scope.limits.runsToday();
    const put = (body: unknown) =>
      fetch(`${web}/api/v1/limits`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await put({ maxRunsPerDay: today + 1 })).status).toBe(200);
    try {
      const count = await stack.db.run.count();
      await page.getByTestId("verdict-repeat").click();
      expect(await page.getByTestId("verdict-repeat-error").textContent()).toMatch(
        /runs were created in the last 24 hours.*; nothing was started$/,
      );
      expect(await stack.db.run.count()).toBe(count);
      expect(await page.getByTestId("verdict-repeat-progress").count()).toBe(0);
    } finally {
      await put({ maxRunsPerDay: limits.maxRunsPerDay });
    }
    await page.close();
  }, 600_000);
});
