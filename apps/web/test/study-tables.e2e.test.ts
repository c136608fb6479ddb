// The studies' tables reproduced from data: the local IoT study (study 000's four k6
// profiles, an HPA-like autoscaled local service vs a scale-to-zero local function,
// 3 repetitions, interleaved) run through the real worker, then its tables checked
// cell by cell, on the page and in the CSV export, against figures this test works
// out on its own from each run's k6 summary, per-second rows and infra points: mean
// and the 95% interval over the repetitions in each figure's domain (t(0.975, 2) in closed form).
// The study's own time scale is 1/30 (`opsbench study iot`); here it is 1/600
// (each 30-minute profile 3 s) so the suite stays quick.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { IOT_STUDY_FUNCTION, IOT_STUDY_SERVICE, iotStudy, runSummarySchema, STUDY_TABLES, studyInput } from "@opsbench/core";
import { createStudyQueue, startStudy } from "@opsbench/jobs";
import { launchBrowser, openTestStack, testRedisUrl, testWebUrl } from "../../../tests/helpers";

const TIME_SCALE = 1 / 600;
const REPETITIONS = 3;
const web = testWebUrl();
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;
let studyQueue: ReturnType<typeof createStudyQueue>;
let studyId: string;

/** Student's t quantile with 2 degrees of freedom, closed form: (2p - 1) / sqrt(2p(1 - p)). */
const t2 = (p: number) => (2 * p - 1) / Math.sqrt(2 * p * (1 - p));

/** What k6's --summary-export says of the requests (its own counts, not opsbench's). */
const k6Summary = z.looseObject({
  metrics: z.looseObject({
    http_reqs: z.looseObject({ count: z.number() }),
    http_req_failed: z.looseObject({ passes: z.number(), fails: z.number() }),
  }),
});

/** Where each checked figure lives: counts, latency, cost and weighted qps are positive, the ratios are shares (%). */
const DOMAIN: Record<string, "positive" | "share"> = {
  total: "positive",
  failed: "positive",
  goodput: "share",
  successRatio: "share",
  expectedResponseRatio: "share",
  p95: "positive",
  costPerThousand: "positive",
  weightedQps: "positive",
};

/**
 * Mean and 95% interval of three values, worked out here (docs/studies.md, "Intervals"): the t-interval of the logs
 * (positive) or the logits (shares), back-transformed; the plain t-interval cut at the edge when a value sits on it.
 */
function interval(xs: number[], domain: "positive" | "share") {
  expect(xs).toHaveLength(REPETITIONS);
  const tInterval = (ys: number[]) => {
    const m = ys.reduce((a, b) => a + b, 0) / ys.length;
    const sd = Math.sqrt(ys.reduce((a, y) => a + (y - m) ** 2, 0) / (ys.length - 1));
    const half = (t2(0.975) * sd) / Math.sqrt(ys.length);
    return [m - half, m + half] as const;
  };
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const top = domain === "share" ? 100 : Number.POSITIVE_INFINITY;
  if (xs.some((x) => x <= 0 || x >= top)) {
    const [low, high] = tInterval(xs);
    return { mean, low: Math.max(0, low), high: Math.min(top, high) };
  }
  if (domain === "positive") {
    const [low, high] = tInterval(xs.map(Math.log));
    return { mean, low: Math.exp(low), high: Math.exp(high) };
  }
  const [low, high] = tInterval(xs.map((x) => Math.log(x / (100 - x))));
  return { mean, low: 100 / (1 + Math.exp(-low)), high: 100 / (1 + Math.exp(-high)) };
}

type Expected = Record<string, { mean: number; low: number; high: number }>;
/** Per "target|workload": the figures this test expects, by metric. */
const expected = new Map<string, Expected>();

beforeAll(async () => {
  stack = await openTestStack();
  browser = await launchBrowser();
  studyQueue = createStudyQueue(testRedisUrl());
  const { study } = await startStudy(
    stack.scope,
    studyQueue,
    studyInput.parse(iotStudy({ timeScale: TIME_SCALE, repetitions: REPETITIONS, cooldownSeconds: 0, seed: 3 })),
  );
  studyId = study.id;
  const until = Date.now() + 400_000;
  for (;;) {
    const s = await stack.db.study.findUniqueOrThrow({ where: { id: studyId } });
    if (["SUCCEEDED", "FAILED", "ABORTED"].includes(s.status)) break;
    if (Date.now() > until) throw new Error(`study ${studyId} still ${s.status}`);
    await new Promise((r) => setTimeout(r, 500));
  }

  const runs = await stack.db.run.findMany({
    where: { studyId },
    include: { target: true, workload: true, results: true, infra: true },
  });
  const byCell = new Map<string, Array<Record<string, number>>>();
  for (const run of runs) {
    expect(run.status, `run ${run.id}: ${run.error}`).toBe("SUCCEEDED");
    const k6 = k6Summary.parse(run.k6Summary);
    const summary = runSummarySchema.parse(run.summary);
    // Worked out from k6's own counts and the stored rows, not from the figures the tables are made of.
    const requests = k6.metrics.http_reqs.count;
    const failed = k6.metrics.http_req_failed.passes;
    const ok = run.results.filter((r) => r.class === "2xx").reduce((a, r) => a + r.requests, 0);
    const stored = run.results.reduce((a, r) => a + r.requests, 0);
    expect(stored).toBe(requests);
    const cpu = run.infra.filter((p) => p.cpuPercent !== null && p.ts >= run.loadStartedAt! && p.ts <= run.loadFinishedAt!);
    const meanCpu = cpu.reduce((a, p) => a + p.cpuPercent!, 0) / cpu.length;
    // A run's summary keeps its shares to 4 decimals (a run with a failed request showed it), and its cost per
    // thousand is over the successful (2xx) requests, as the cost table says.
    const share = (part: number) => Math.round(((100 * part) / requests) * 1e4) / 1e4;
    const figures: Record<string, number> = {
      total: requests,
      failed,
      goodput: share(ok),
      successRatio: share(ok),
      expectedResponseRatio: share(k6.metrics.http_req_failed.fails),
      p95: summary.latencyMs.p95,
      costPerThousand: (summary.cost!.total / ok) * 1000,
    };
    if (cpu.length > 0 && meanCpu > 0) figures.weightedQps = summary.rps / meanCpu;
    const key = `${run.target!.name}|${run.workload!.name}`;
    byCell.set(key, [...(byCell.get(key) ?? []), figures]);
  }
  for (const [key, list] of byCell) {
    const e: Expected = {};
    for (const metric of Object.keys(list[0]!))
      if (list.every((f) => f[metric] !== undefined))
        e[metric] = interval(
          list.map((f) => f[metric]!),
          DOMAIN[metric]!,
        );
    expected.set(key, e);
  }
}, 600_000);
afterAll(async () => {
  await studyQueue?.close();
  await browser?.close();
  await stack?.close();
});

/** Relative closeness: the page and the CSV carry full-precision numbers. */
const close = (actual: number, wanted: number, what: string) =>
  expect(Math.abs(actual - wanted), `${what}: ${actual} vs ${wanted}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(wanted)));

function parseCsv(text: string): Array<Record<string, string>> {
  const [head, ...lines] = text.trimEnd().split("\r\n");
  const columns = head!.split(",");
  return lines.map((l) => Object.fromEntries(l.split(",").map((v, i) => [columns[i]!, v])));
}

const WORKLOADS = ["iot-linear", "iot-random", "iot-spike", "iot-sprint"];

describe("the IoT study's tables, reproduced from data", () => {
  it("runs 2 targets x 4 profiles x 3 repetitions and every cell has its three runs", () => {
    expect([...expected.keys()].sort()).toEqual(
      [IOT_STUDY_SERVICE, IOT_STUDY_FUNCTION].flatMap((t) => WORKLOADS.map((w) => `${t}|${w}`)).sort(),
    );
  });

  it("the request-count and duration CSVs (Tables 5.x: a row per deployment x workload) hold the runs' own figures", async () => {
    for (const [table, metrics] of [
      ["request-counts", ["failed", "total", "goodput"]],
      ["request-durations", ["p95"]],
    ] as const) {
      const res = await fetch(`${web}/api/v1/studies/${studyId}/tables?table=${table}&format=csv`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/csv");
      const rows = parseCsv(await res.text());
      expect(rows).toHaveLength(8);
      for (const row of rows) {
        const e = expected.get(`${row.target}|${row.workload}`)!;
        expect(row.n).toBe(String(REPETITIONS));
        for (const m of metrics) {
          close(Number(row[m]), e[m]!.mean, `${table} ${row.target} ${row.workload} ${m}`);
          close(Number(row[`${m}_low`]), e[m]!.low, `${m} low`);
          close(Number(row[`${m}_high`]), e[m]!.high, `${m} high`);
        }
      }
    }
  });

  it("the cost CSV (Table 5.45: workloads x deployments) and the success-ratio CSV (Table 4.3: deployments x workloads) too", async () => {
    const cost = parseCsv(await (await fetch(`${web}/api/v1/studies/${studyId}/tables?table=cost&format=csv`)).text());
    expect(cost.map((r) => r.workload).sort()).toEqual([...WORKLOADS].sort());
    for (const row of cost) {
      expect(row.unit).toBe("EUR-cent");
      for (const target of [IOT_STUDY_SERVICE, IOT_STUDY_FUNCTION]) {
        const e = expected.get(`${target}|${row.workload}`)!.costPerThousand!;
        close(Number(row[`${target}:costPerThousand`]), e.mean, `cost ${target} ${row.workload}`);
        close(Number(row[`${target}:costPerThousand_high`]), e.high, `cost high ${target} ${row.workload}`);
      }
    }
    const ratio = parseCsv(await (await fetch(`${web}/api/v1/studies/${studyId}/tables?table=success-ratio&format=csv`)).text());
    expect(ratio.map((r) => r.target).sort()).toEqual([IOT_STUDY_SERVICE, IOT_STUDY_FUNCTION].sort());
    for (const row of ratio)
      for (const w of WORKLOADS) {
        const e = expected.get(`${row.target}|${w}`)!;
        close(Number(row[`${w}:successRatio`]), e.successRatio!.mean, `success ratio ${row.target} ${w}`);
        close(Number(row[`${w}:expectedResponseRatio`]), e.expectedResponseRatio!.mean, `expected_response ${row.target} ${w}`);
      }
  });

  it("the page shows the same tables, named as the studies named them, with the throughput definitions selectable", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${web}/studies/${studyId}`);
    await page.getByTestId("study-tables-link").click();
    await page.waitForURL(new RegExp(`/studies/${studyId}/tables$`));
    for (const id of Object.keys(STUDY_TABLES)) expect(await page.getByTestId(`study-table-${id}`).count(), id).toBe(1);
    expect(await page.getByTestId("study-table-success-ratio").textContent()).toContain("k6 expected_response");
    const definitions = await page.getByTestId("study-table-definitions").textContent();
    for (const name of ["goodput (study 000)", "success ratio (study 001)", "maximum throughput (study 004)", "weighted qps (study 002)"])
      expect(definitions).toContain(name);

    const figures = await page.getByTestId("study-table-figure").evaluateAll((els) => els.map((e) => ({ ...(e as HTMLElement).dataset })));
    let checked = 0;
    for (const f of figures) {
      const e = expected.get(`${f.target}|${f.workload}`)?.[f.metric!];
      if (!e) continue;
      close(Number(f.mean), e.mean, `page ${f.table} ${f.target} ${f.workload} ${f.metric}`);
      close(Number(f.low), e.low, `page ${f.metric} low`);
      checked++;
    }
    // failed, total, goodput, p95, cost, success ratio, expected_response (and weighted qps where CPU was seen), for 8 cells.
    expect(checked).toBeGreaterThanOrEqual(8 * 7);

    // Maximum throughput of one request name: the select puts it in the URL and the table says which.
    await page.locator("#study-tables-request").selectOption("users-signin");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/request=users-signin/);
    expect(await page.getByTestId("study-table-throughput").textContent()).toContain('max throughput of "users-signin"');
    await page.close();
  });

  it("compares the study's cells under the margin the user sets on /compare (query parameter), and the verdicts say it", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${web}/compare?study=${studyId}&margin=2`);
    const margins = async () =>
      // The comparison's margin: the failure share keeps its own (on its odds: data-scale log-odds).
      page
        .locator("[data-testid^=verdict-][data-margin][data-margin-unit=relative]:not([data-scale=log-odds])")
        .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.margin));
    expect(await page.getByTestId("cmp-margin").inputValue()).toBe("2");
    expect(new Set(await margins())).toEqual(new Set(["0.02"]));
    expect(await page.getByTestId("cmp-verdicts").textContent()).toContain("±2%");
    await page.getByTestId("cmp-margin").fill("10");
    await page.getByTestId("cmp-margin-form").getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/margin=10/);
    expect(page.url()).toContain(`study=${studyId}`);
    expect(new Set(await margins())).toEqual(new Set(["0.1"]));
    const titles = await page
      .locator("[data-testid^=verdict-][data-outcome][data-margin-unit=relative]:not([data-scale=log-odds])")
      .evaluateAll((els) => els.map((e) => e.getAttribute("title") ?? ""));
    expect(titles.filter((t) => !t.startsWith("no verdict")).every((t) => t.includes("margin +-10.0"))).toBe(true);
    await page.goto(`${web}/compare?study=${studyId}&margin=lots`);
    expect(await page.getByTestId("cmp-margin-error").textContent()).toContain("margin: expected a number");
    await page.close();

    const api = await fetch(`${web}/api/v1/comparisons?study=${studyId}&margin=2`);
    expect(api.status).toBe(200);
    const body = (await api.json()) as {
      verdicts: Array<{ margin: number; scale: string; baseline: string; candidate: string; metric: string }>;
    };
    expect(body.verdicts.length).toBeGreaterThan(0);
    expect(body.verdicts.filter((v) => v.scale !== "log-odds").every((v) => v.margin === 0.02)).toBe(true);
    // The failure share keeps its failure margin (50% of the baseline's odds unless failureMargin says otherwise).
    expect(body.verdicts.filter((v) => v.scale === "log-odds").every((v) => v.metric === "failure share" && v.margin === 0.5)).toBe(true);
    const slo = (await (await fetch(`${web}/api/v1/comparisons?study=${studyId}&failureMargin=20`)).json()) as typeof body;
    expect(slo.verdicts.filter((v) => v.scale === "log-odds").every((v) => v.margin === 0.2)).toBe(true);
    // A study compares targets within each workload (labels "target x workload"): 4 workloads, one pair each.
    const workloadOf = (label: string) => label.split(" x ").at(-1);
    expect(body.verdicts.every((v) => workloadOf(v.baseline) === workloadOf(v.candidate))).toBe(true);
    expect(new Set(body.verdicts.map((v) => `${v.baseline}>${v.candidate}`)).size).toBe(4);
    expect((await fetch(`${web}/api/v1/comparisons?study=${studyId}&margin=80`)).status).toBe(422);
  });
});
