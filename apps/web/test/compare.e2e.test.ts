// The comparison page in a real browser (Debian's Chromium driven by
// playwright-core), against the built web app, a real worker and real k6 runs:
// a study of two targets x 2 repetitions each, tiny loads.
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSummarySchema, studyInput, studentTQuantile, type RunSummary } from "@opsbench/core";
import type { ComparisonView } from "@opsbench/db";
import { createStudyQueue, startStudy } from "@opsbench/jobs";
import { openTestStack, shortRamp, taewaTarget, launchBrowser, testRedisUrl, testWebUrl } from "../../../tests/helpers";

const web = testWebUrl();
let stack: Awaited<ReturnType<typeof openTestStack>>;
let studyQueue: ReturnType<typeof createStudyQueue>;
let browser: Browser;
let studyId = "";
const runsOf: Record<"one" | "two", string[]> = { one: [], two: [] };

beforeAll(async () => {
  stack = await openTestStack();
  studyQueue = createStudyQueue(testRedisUrl());
  browser = await launchBrowser();
  // A two-target study: one replica against two of the same app, 2 repetitions each, tiny loads
  // of about 13 s (two 10 s buckets per run, so every time series has a line).
  const { study } = await startStudy(
    stack.scope,
    studyQueue,
    studyInput.parse({
      name: "one vs two replicas",
      targets: [taewaTarget("cmp-one", { replicas: 1 }), taewaTarget("cmp-two", { replicas: 2 })],
      workloads: [shortRamp("cmp-tiny", { vus: 2, holdSeconds: 9, path: "/?n=2000" })],
      repetitions: 2,
      order: "interleaved-random",
      seed: 3,
      cooldownSeconds: 0,
    }),
  );
  studyId = study.id;
  const until = Date.now() + 400_000;
  for (;;) {
    const s = await stack.db.study.findUniqueOrThrow({
      where: { id: studyId },
      include: { runs: { include: { target: true }, orderBy: { repetition: "asc" } } },
    });
    if (
      ["SUCCEEDED", "FAILED", "ABORTED"].includes(s.status) &&
      s.runs.every((r) => ["SUCCEEDED", "FAILED", "ABORTED"].includes(r.status))
    ) {
      expect(s.runs.map((r) => r.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
      for (const r of s.runs) runsOf[r.target!.name === "cmp-one" ? "one" : "two"].push(r.id);
      break;
    }
    if (Date.now() > until) throw new Error(`study ${studyId} still ${s.status}`);
    await new Promise((r) => setTimeout(r, 500));
  }
});
afterAll(async () => {
  await browser?.close();
  await studyQueue?.close();
  await stack?.close();
});

const METRICS = ["p50", "p95", "p99", "req/s", "failure share", "p95 (all responses)", "p99 (all responses)"] as const;
// Latency verdicts on successful responses first, then on all responses (docs/measurement.md).
const ofSummary: Record<(typeof METRICS)[number], (s: RunSummary) => number> = {
  p50: (s) => (s.successLatencyMs ?? s.latencyMs).p50,
  p95: (s) => (s.successLatencyMs ?? s.latencyMs).p95,
  p99: (s) => (s.successLatencyMs ?? s.latencyMs).p99,
  "req/s": (s) => s.rps,
  // Goodput is judged as the failure share, in percentage points.
  "failure share": (s) => (s.requests > 0 ? 100 - s.goodput : 0),
  "p95 (all responses)": (s) => s.latencyMs.p95,
  "p99 (all responses)": (s) => s.latencyMs.p99,
};
const slug = (m: string) => m.replace(/[^A-Za-z0-9]+/g, "-");
const selectionQuery = () =>
  new URLSearchParams([
    ["g", `one replica:${runsOf.one.join(",")}`],
    ["g", `two replicas:${runsOf.two.join(",")}`],
  ]).toString();

/** Counts drawn marks inside a chart container. */
const count = (page: Page, testId: string, selector: string) => page.getByTestId(testId).locator(selector).count();

async function download(page: Page, click: () => Promise<void>) {
  const [dl] = await Promise.all([page.waitForEvent("download"), click()]);
  return { name: dl.suggestedFilename(), bytes: readFileSync((await dl.path())!) };
}

describe("comparison page", () => {
  it("compares runs picked in the page, with every chart populated and verdict intervals equal to Welch's interval computed here", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));

    // Pick the four runs; the page groups them by target x workload by itself.
    await page.goto(`${web}/compare`);
    for (const id of [...runsOf.one, ...runsOf.two])
      await page.locator(`[data-testid="cmp-pick-row"][data-run-id="${id}"] [data-testid="cmp-pick"]`).check();
    await expect.poll(() => page.getByTestId("cmp-group-label").count()).toBe(2);
    await page.getByTestId("cmp-group-label").nth(0).fill("one replica");
    await page.getByTestId("cmp-group-label").nth(1).fill("two replicas");
    await page.getByTestId("cmp-submit").click();
    await page.waitForURL(/\/compare\?g=/);
    await page.getByTestId("cmp-view").waitFor();

    // What the page was given, from the API with the same selection.
    const api = (await (await fetch(`${web}/api/v1/comparisons?${selectionQuery()}`)).json()) as ComparisonView;
    expect(api.groups.map((g) => g.label)).toEqual(["one replica", "two replicas"]);
    expect(api.groups.map((g) => g.runs.map((r) => r.id).sort())).toEqual([[...runsOf.one].sort(), [...runsOf.two].sort()]);

    // Every row of the time panel drawn on one x axis, with as many marks as its data has points (the page's
    // buckets are chosen by the runs' length: 1 s for these short runs; the API keeps its 10 s series).
    expect(api.groups.every((g) => g.series.length >= 2)).toBe(true);
    const shown = async (id: string) => Number(await page.getByTestId(id).getAttribute("data-points"));
    expect(await count(page, "cmp-chart-latency", ".recharts-line-dot")).toBe(await shown("cmp-chart-latency")); // the picked quantile (p95)
    expect(await count(page, "cmp-chart-latency", "path.recharts-line-curve")).toBe(api.groups.length);
    // The page's buckets, all groups: what the requests row draws and its CSV exports.
    const buckets = await shown("cmp-chart-requests");
    expect(await count(page, "cmp-chart-requests", ".recharts-area-dot")).toBe(buckets);
    expect(await count(page, "cmp-chart-goodput", ".recharts-line-dot")).toBe(await shown("cmp-chart-goodput"));
    expect(await count(page, "cmp-chart-cdf", "path.recharts-line-curve")).toBe(api.groups.length);
    expect(Number(await page.getByTestId("cmp-chart-cdf").getAttribute("data-points"))).toBe(
      api.groups.reduce((s, g) => s + g.distribution.length, 0),
    );
    expect(await count(page, "cmp-chart-box", "rect.cmp-box")).toBe(METRICS.length * api.groups.length);
    expect(await count(page, "cmp-chart-box", "circle.cmp-box-point")).toBe(METRICS.length * 4);
    const infraRuns = new Set(api.groups.flatMap((g) => g.infra.map((p) => p.runId)));
    expect(infraRuns.size).toBe(4);
    expect(await count(page, "cmp-chart-infra", "path.recharts-line-curve")).toBe(api.groups.length); // a group's runs averaged
    const cpuRuns = new Set(api.groups.flatMap((g) => g.infra.filter((p) => p.cpuPercent !== null).map((p) => p.runId)));
    expect(cpuRuns.size).toBeGreaterThan(0);
    const cpuGroups = api.groups.filter((g) => g.infra.some((p) => p.cpuPercent !== null)).length;
    expect(await count(page, "cmp-chart-infra-cpu", "path.recharts-line-curve")).toBe(cpuGroups);
    // The Table 5.45 shape: one row per request name x workload, one column per target.
    expect(await page.getByTestId("cmp-cost-table").locator('[data-testid="cost-row"]').count()).toBe(1);
    expect(await page.getByTestId("cmp-cost-table").locator('[data-testid="cost-cell"]').count()).toBe(2);
    // Two repetitions are fewer than the three a spread needs: flagged beside the group's numbers.
    expect(await page.locator('[data-testid="cmp-group-validity"] [data-testid="flag-too-few-repetitions"]').count()).toBe(2);

    // Verdicts: recompute each interval from the runs' stored summaries, in the order the page lists the runs.
    const stored = new Map(
      (await stack.db.run.findMany({ where: { id: { in: [...runsOf.one, ...runsOf.two] } }, select: { id: true, summary: true } })).map(
        (r) => [r.id, runSummarySchema.parse(r.summary)],
      ),
    );
    const order = await Promise.all(
      [0, 1].map((gi) =>
        page
          .locator(`tbody:has([data-testid="cmp-group-row"][data-group="${gi}"]) [data-testid="cmp-run-row"]`)
          .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-run-id")!)),
      ),
    );
    expect(order.map((ids) => [...ids].sort())).toEqual([[...runsOf.one].sort(), [...runsOf.two].sort()]);
    for (const metric of METRICS) {
      const row = page.getByTestId(`verdict-${slug(metric)}`);
      expect(await row.count(), metric).toBe(1);
      const attr = async (n: string) => (await row.getAttribute(n))!;
      // Two runs a side: Welch's t over the repetitions, never a bootstrap of two values.
      expect(await attr("data-basis")).toBe("runs");
      expect(await attr("data-method")).toBe("welch-t");
      expect(await attr("data-samples")).toBe("2,2");
      expect(await attr("data-role")).toBe(metric === "p95" ? "primary" : "descriptive");
      // The failure share is judged on its odds (the verdict tests of packages/db check its numbers).
      if (metric === "failure share") {
        expect(await attr("data-scale")).toBe("log-odds");
        continue;
      }
      const a = order[0]!.map((id) => ofSummary[metric](stored.get(id)!));
      const b = order[1]!.map((id) => ofSummary[metric](stored.get(id)!));
      const estimate = b.reduce((x, y) => x + y, 0) / 2 - a.reduce((x, y) => x + y, 0) / 2;
      // Welch-Satterthwaite's df by hand, one df a side: (va + vb)^2 / (va^2 + vb^2), va = s_a^2 / 2.
      const varOfMean = (xs: number[]) => (xs[0]! - xs[1]!) ** 2 / 2 / 2;
      const [va, vb] = [varOfMean(a), varOfMean(b)];
      const df = va + vb === 0 ? 2 : (va + vb) ** 2 / (va ** 2 + vb ** 2);
      const half = studentTQuantile(0.975, df) * Math.sqrt(va + vb);
      const mine = { estimate, low: estimate - half, high: estimate + half };
      const [low, high, difference] = [
        Number(await attr("data-low")),
        Number(await attr("data-high")),
        Number(await attr("data-difference")),
      ];
      expect(low, metric).toBeCloseTo(mine.low, 9);
      expect(high, metric).toBeCloseTo(mine.high, 9);
      expect(difference, metric).toBeCloseTo(mine.estimate, 9);
      // The interval as printed: [low, high] with the page's rounding.
      const shown = ((await row.getByTestId("verdict-ci").textContent()) ?? "")
        .replace(/−/g, "-")
        .match(/-?\+?[0-9.]+/g)!
        .map(Number);
      const tolerance = metric === "req/s" ? 0.051 : 0.0051;
      expect(Math.abs(shown[0]! - mine.low), `${metric} low shown`).toBeLessThanOrEqual(tolerance);
      expect(Math.abs(shown[1]! - mine.high), `${metric} high shown`).toBeLessThanOrEqual(tolerance);
      const said = (await row.getByTestId("verdict-text").textContent()) ?? "";
      const outcome = await attr("data-outcome");
      // The margin: 5% of the baseline's mean.
      const band = 0.05 * Math.abs(a.reduce((x, y) => x + y, 0) / 2);
      // The primary metric's rows say a verdict; the descriptive rows only where the interval lies (never "better").
      const primary = (await attr("data-role")) === "primary";
      if (mine.low >= -band && mine.high <= band) expect(outcome).toBe("equivalent");
      else if (mine.low > band || mine.high < -band) expect(said).toMatch(primary ? /is better beyond|inconclusive/ : /^interval beyond/);
      else {
        expect(outcome).toBe("inconclusive");
        expect(said).toMatch(primary ? /^inconclusive: finds [0-9.]+% 80% of the time/ : /^interval spans/);
      }
      expect(await row.getAttribute("title")).toMatch(/Welch's t over run values, n = 2 vs 2 runs, margin \+-5\.00%/);
    }

    // Exports: CSV of a series, JSON of the verdicts, PNG and SVG of a chart.
    const csv = await download(page, () => page.getByTestId("cmp-chart-requests").getByTestId("export-csv").click());
    expect(csv.name).toMatch(/\.csv$/);
    const lines = csv.bytes.toString("utf8").trim().split(/\r\n/);
    expect(lines[0]).toBe("group,offset_s,requests,p50_ms,p95_ms,p99_ms,goodput_pct");
    expect(lines.length - 1).toBe(buckets);
    // The CSV is the chart's data: the groups' series of the whole runs, as the window loader gives them.
    const whole = await stack.scope.compareWindow(
      api.groups.map((g) => ({ label: g.label, runIds: g.runs.map((r) => r.id) })),
      0,
    );
    const rows = lines.slice(1).map((l) => l.split(","));
    expect(rows.map((r) => [r[0], Number(r[1]), Number(r[2])])).toEqual(
      whole.series.flatMap((series, i) => series.map((b) => [api.groups[i]!.label, b.offsetSeconds, Math.round(b.requests * 100) / 100])),
    );
    // The series of a group of repetitions is their average per bucket (never their sum): it adds up to a run's mean
    // total, a little more when a second only some runs reached (answers after one run's load window) holds requests.
    const meanRequestsOfRuns = api.groups.reduce((s, g) => s + g.merged!.requests / g.runs.length, 0);
    const csvRequests = rows.reduce((s, r) => s + Number(r[2]), 0);
    expect(csvRequests).toBeGreaterThanOrEqual(meanRequestsOfRuns - buckets * 0.01); // cells are rounded to 2 decimals at most
    expect(csvRequests).toBeLessThan(meanRequestsOfRuns * 1.25);
    const verdictsJson = JSON.parse(
      (await download(page, () => page.getByTestId("cmp-verdicts").getByTestId("export-json").click())).bytes.toString("utf8"),
    );
    expect(verdictsJson.map((v: { metric: string }) => v.metric)).toEqual([...METRICS]);
    const png = await download(page, () => page.getByTestId("cmp-chart-latency").getByTestId("export-png").click());
    expect(png.bytes.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
    expect(png.bytes.length).toBeGreaterThan(5000);
    const svg = (await download(page, () => page.getByTestId("cmp-chart-box").getByTestId("export-svg").click())).bytes.toString("utf8");
    expect(svg).toMatch(/^<\?xml/);
    expect(svg).toContain("one replica");
    expect((svg.match(/class="cmp-box"/g) ?? []).length).toBe(METRICS.length * 2);
    // The same tables from the server, for scripts.
    const server = await fetch(`${web}/api/v1/comparisons/export?format=csv&table=series&${selectionQuery()}`);
    expect(server.status).toBe(200);
    // The page sends its charts' series with 4 significant digits (what a chart can show; docs/performance.md),
    // so its CSV agrees with the server's exact export to that precision, cell by cell.
    const serverLines = (await server.text()).trim().split(/\r\n/);
    expect(serverLines[0]).toBe(lines[0]);
    // The page draws these short runs in 1 s buckets (its time panel's resolution), the export keeps the stored 10 s
    // ones: the page's seconds, added up per 10 s, are the server's buckets' requests. In a group's last bucket a
    // second only some runs reached (answers after one run's load window) is that run's alone at 1 s, and
    // averaged over every run that reached the 10 s bucket: the page's is at least the server's there.
    const serverBucket = Number(serverLines[2]?.split(",")[1] ?? 10) || 10;
    const perBucket = new Map<string, number>();
    for (const l of lines.slice(1)) {
      const [group, offset, requests] = l.split(",");
      const key = `${group},${Math.floor(Number(offset) / serverBucket) * serverBucket}`;
      perBucket.set(key, (perBucket.get(key) ?? 0) + Number(requests));
    }
    const lastOffset = new Map(serverLines.slice(1).map((l) => [l.split(",")[0], Number(l.split(",")[1])]));
    for (const l of serverLines.slice(1)) {
      const [group, offset, requests] = l.split(",");
      const pageRequests = perBucket.get(`${group},${offset}`) ?? 0;
      if (Number(offset) === lastOffset.get(group!)) expect(pageRequests, l).toBeGreaterThanOrEqual(Number(requests) - serverBucket * 0.01);
      else expect(Math.abs(pageRequests - Number(requests)), l).toBeLessThanOrEqual(serverBucket * 0.01);
    }

    await page.screenshot({ path: "/tmp/cmp-compare-page.png", fullPage: true });

    // The study as a whole (?study=): its cells are the same groups, so the same intervals.
    const picked = await page
      .locator('tr[data-testid^="verdict-"]')
      .evaluateAll((rows) => rows.map((r) => [r.getAttribute("data-low"), r.getAttribute("data-high")]));
    await page.goto(`${web}/compare?study=${studyId}`);
    await page.getByTestId("cmp-view").waitFor();
    expect(await page.locator("h1").textContent()).toContain("one vs two replicas");
    expect(await page.locator('[data-testid="cmp-group-row"]').evaluateAll((rows) => rows.length)).toBe(2);
    expect(
      await page
        .locator('tr[data-testid^="verdict-"]')
        .evaluateAll((rows) => rows.map((r) => [r.getAttribute("data-low"), r.getAttribute("data-high")])),
    ).toEqual(picked);
    expect(Number(await page.getByTestId("cmp-chart-box").getAttribute("data-points"))).toBe(METRICS.length * 2);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("prints a report with every chart and table, the selection and the date, and no navigation", async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
    await page.goto(`${web}/compare/report?${selectionQuery()}`);
    await page.getByTestId("cmp-report").waitFor();
    expect(await page.locator("nav").count()).toBe(0);
    expect(await page.getByTestId("export-csv").count()).toBe(0);
    for (const id of [
      "cmp-chart-latency",
      "cmp-chart-requests",
      "cmp-chart-goodput",
      "cmp-chart-cdf",
      "cmp-chart-box",
      "cmp-chart-infra",
      "cmp-chart-infra-cpu",
    ]) {
      expect(Number(await page.getByTestId(id).getAttribute("data-points")), id).toBeGreaterThan(0);
    }
    const header = (await page.locator("header").first().textContent()) ?? "";
    for (const id of [...runsOf.one, ...runsOf.two]) expect(header).toContain(id);
    expect(header).toMatch(/Generated \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    // On paper the report is zoomed to the printable width of A4 (186 mm, ~703 px) with its charts as drawn.
    await page.emulateMedia({ media: "print" });
    expect((await page.getByTestId("cmp-report").boundingBox())!.width).toBeLessThanOrEqual(705);
    // The latency row and the CDF are drawn tall; the replicas row is a short strip of the time panel.
    for (const [id, least] of [
      ["cmp-chart-latency", 100],
      ["cmp-chart-cdf", 100],
      ["cmp-chart-infra", 60],
    ] as const) {
      const plot = (await page.getByTestId(id).locator(".recharts-wrapper > svg").boundingBox())!;
      expect(plot.height, id).toBeGreaterThan(least);
      expect(plot.width, id).toBeLessThanOrEqual(705);
    }
    await page.screenshot({ path: "/tmp/cmp-report-print.png", fullPage: true });
    const pdf = await page.pdf({ format: "A4" });
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    await page.close();
  });

  it("answers bad comparison input with 422 naming the place, and unknown runs likewise", async () => {
    const post = (body: unknown) =>
      fetch(`${web}/api/v1/comparisons`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const bad = await post({ groups: [{ runIds: ["nope"] }] });
    expect(bad.status).toBe(422);
    expect((await bad.json()).error.issues.map((i: { path: string }) => i.path)).toEqual(["groups.0.runIds.0"]);
    const missing = await post({ groups: [{ runIds: [runsOf.one[0]] }, { runIds: ["00000000-0000-4000-8000-000000000000"] }] });
    expect(missing.status).toBe(422);
    expect((await missing.json()).error.issues[0].path).toBe("groups.1.runIds.0");
    const extra = await post({ groups: [{ runIds: runsOf.one }], colour: "red" });
    expect(extra.status).toBe(422);
    expect((await extra.json()).error.issues[0].path).toBe("colour");
    const noStudy = await post({ studyId: "00000000-0000-4000-8000-000000000000" });
    expect(noStudy.status).toBe(422);
    expect((await noStudy.json()).error.issues[0].path).toBe("studyId");
    const ok = await post({ groups: [{ label: "one", runIds: runsOf.one }, { runIds: runsOf.two }] });
    expect(ok.status).toBe(200);
    const view = (await ok.json()) as ComparisonView;
    expect(view.groups.map((g) => g.label)).toEqual(["one", "cmp-two x cmp-tiny"]);
    expect(view.verdicts.map((v) => v.metric)).toEqual([...METRICS]);
  });
});
