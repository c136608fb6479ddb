// The primary metric's verdict first, its power line, and the descriptive rows set apart (issue 34, finding 3), in a
// real browser against the built web app: on the compare page of k6 files this test writes (3 runs a side, imported
// by the real `opsbench import k6`), on the page of a small real study (two targets, 2 repetitions), and in the study
// form's planner. Screenshots go to /tmp/i34-compare.png, /tmp/i34-study.png and /tmp/i34-study-form.png.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MetricVerdict, planStudy, studyInput } from "@opsbench/core";
import { createStudyQueue, startStudy } from "@opsbench/jobs";
import { launchBrowser, openTestStack, shortRamp, taewaTarget, testRedisUrl, testWebUrl } from "../../../tests/helpers";
import { importK6Requests, type WrittenRequest } from "../../../tests/k6-result-files";

const web = testWebUrl();
let stack: Awaited<ReturnType<typeof openTestStack>>;
let studyQueue: ReturnType<typeof createStudyQueue>;
let browser: Browser;
let dir: string;
let studyId = "";
const T0 = Date.UTC(2026, 10, 28, 4, 0, 0);
const ids: Record<"a" | "b", string[]> = { a: [], b: [] };

/** 30 s at 10 req/s; latencies 40..79 ms plus `slow`; every `failEvery`-th request a 503 (0: none). */
const requests = (slow: number, failEvery: number): WrittenRequest[] =>
  Array.from({ length: 300 }, (_, i) => ({ atMs: i * 100, ms: 40 + ((i * 7) % 40) + slow, ok: failEvery === 0 || i % failEvery !== 0 }));

beforeAll(async () => {
  stack = await openTestStack();
  studyQueue = createStudyQueue(testRedisUrl());
  browser = await launchBrowser();
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-primary-"));
  // A: three runs a few ms apart, no failures; B: 8-12 ms slower, with a failure in 40, 50 and 60 requests.
  for (const [i, slow] of [0, 3, 6].entries())
    ids.a.push(await importK6Requests(dir, `primary-a${i}`, requests(slow, 0), { t0: T0 + i * 60_000 }));
  for (const [i, [slow, failEvery]] of [
    [8, 40],
    [10, 50],
    [12, 60],
  ].entries())
    ids.b.push(await importK6Requests(dir, `primary-b${i}`, requests(slow!, failEvery!), { t0: T0 + (3 + i) * 60_000 }));
  const { study } = await startStudy(
    stack.scope,
    studyQueue,
    studyInput.parse({
      name: "primary card",
      targets: [taewaTarget("vp-one", { replicas: 1 }), taewaTarget("vp-two", { replicas: 2 })],
      workloads: [shortRamp("vp-tiny", { vus: 2, holdSeconds: 6, path: "/?n=2000" })],
      repetitions: 2,
      order: "interleaved-random",
      seed: 5,
      cooldownSeconds: 0,
    }),
  );
  studyId = study.id;
  const until = Date.now() + 400_000;
  for (;;) {
    const s = await stack.db.study.findUniqueOrThrow({ where: { id: studyId }, include: { runs: true } });
    if (
      ["SUCCEEDED", "FAILED", "ABORTED"].includes(s.status) &&
      s.runs.every((r) => ["SUCCEEDED", "FAILED", "ABORTED"].includes(r.status))
    ) {
      expect(s.runs.map((r) => r.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
      break;
    }
    if (Date.now() > until) throw new Error(`study ${studyId} still ${s.status}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}, 450_000);
afterAll(async () => {
  await browser?.close();
  await studyQueue?.close();
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The power line of a verdict as its own fields say it (the page must say this, word for word). */
const POWER_LINE = /^With (\d+) vs (\d+) runs, this comparison finds a true 10% difference in p95 (\d+)% of the time; (.*)$/;

/** The order, in the verdicts section, of everything with a data-role: the primary card must come first. */
const rolesInOrder = (page: Page, section: string) =>
  page
    .getByTestId(section)
    .locator("[data-role]")
    .evaluateAll((els) =>
      els.map((e) => `${e.getAttribute("data-role")}:${e.getAttribute("data-testid")}:${e.getAttribute("data-metric")}`),
    );

/** Descriptive rows sit under the descriptive heading, say no "significant" and are never significant. */
async function expectDescriptiveApart(page: Page, section: string, expected: number) {
  const box = page.getByTestId(section).getByTestId("cmp-verdicts-descriptive");
  expect(await box.getByTestId("cmp-descriptive-heading").textContent()).toBe(
    "Descriptive: other metrics (intervals shown, never significant)",
  );
  const rows = box.locator('tr[data-role="descriptive"]');
  expect(await rows.count()).toBe(expected);
  expect(await page.getByTestId(section).locator('[data-role="descriptive"]').count()).toBe(expected);
  for (const text of await rows.allTextContents()) expect(text).not.toMatch(/significant|better/i);
  expect(new Set(await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-significant"))))).toEqual(new Set(["false"]));
  expect(await box.locator(".text-blue-700, .font-semibold").count()).toBe(0);
}

describe("the primary metric's verdict first, its power, the descriptive rows apart", () => {
  it("compare page: the p95 card first with the power line from the verdict; the failure share as an odds ratio; the rest descriptive", async () => {
    const query = `g=A:${ids.a.join(",")}&g=B:${ids.b.join(",")}`;
    const api = (await (await fetch(`${web}/api/v1/comparisons?${query}`)).json()) as { verdicts: MetricVerdict[] };
    const p95 = api.verdicts.find((v) => v.metric === "p95")!;
    expect(p95.role).toBe("primary");
    expect(api.verdicts.filter((v) => v.role === "primary")).toHaveLength(1);

    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${web}/compare?${query}`);
    await page.getByTestId("cmp-verdicts").waitFor();
    const order = await rolesInOrder(page, "cmp-verdicts");
    expect(order[0]).toBe("primary:cmp-primary-card:p95");
    expect(order.filter((o) => o.startsWith("descriptive")).length).toBe(api.verdicts.length - 1);
    // The card: the outcome in words, the interval, and the power line from the verdict's fields.
    const card = page.getByTestId("cmp-primary-card");
    expect(await card.getByTestId("cmp-primary-outcome").textContent()).toMatch(/on p95/);
    expect(await card.getByTestId("cmp-primary-interval").textContent()).toMatch(/^B − A: [+−][0-9.]+ ms, 95% CI \[/);
    const line = (await card.getByTestId("cmp-power-line").textContent()) ?? "";
    const said = line.match(POWER_LINE);
    expect(said, line).not.toBeNull();
    expect([Number(said![1]), Number(said![2])]).toEqual([3, 3]);
    expect(Number(said![3])).toBe(Math.round(p95.power! * 100));
    expect(said![4]).toContain(
      p95.runsNeeded === null ? "" : `about ${p95.runsNeeded} runs a side would find it 80% of the time (80% from a `,
    );
    // The family summary follows the card, then the descriptive rows under their heading.
    expect(await page.getByTestId("cmp-verdict-family").textContent()).toMatch(/descriptive \(other metrics; never significant\)/);
    await expectDescriptiveApart(page, "cmp-verdicts", api.verdicts.length - 1);
    // The failure share: B failed 8, 6 and 5 of 300, A none; judged as an odds ratio with its margin of the odds.
    const failure = page.getByTestId("verdict-failure-share");
    expect(await failure.getAttribute("data-scale")).toBe("log-odds");
    expect(await failure.textContent()).toMatch(/odds ratio [0-9.]+x/);
    expect(await failure.getByTestId("verdict-scale").textContent()).toMatch(/margin ±50% of the odds/);
    await page.screenshot({ path: "/tmp/i34-compare.png", fullPage: true });

    // The user's choices, in the URL: p99 as the primary metric, a 20% effect; a bad metric is named.
    await page.goto(`${web}/compare?${query}&primary=p99&effect=20`);
    await page.getByTestId("cmp-verdicts").waitFor();
    expect((await rolesInOrder(page, "cmp-verdicts"))[0]).toBe("primary:cmp-primary-card:p99");
    expect(await page.getByTestId("cmp-primary").inputValue()).toBe("p99");
    expect(await page.getByTestId("cmp-power-line").textContent()).toMatch(/a true 20% difference in p99/);
    await page.goto(`${web}/compare?${query}&primary=p42`);
    expect(await page.getByTestId("cmp-choices-error").textContent()).toContain(
      "primary: expected one of: p50, p95, p99, req/s, failure share",
    );
    expect((await rolesInOrder(page, "cmp-verdicts"))[0]).toBe("primary:cmp-primary-card:p95");
    expect((await fetch(`${web}/api/v1/comparisons?${query}&primary=p42`)).status).toBe(422);
    await page.close();
  });

  it("study page: the study's verdicts with the primary card first, its power line, the descriptive rows apart", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${web}/studies/${studyId}`);
    const section = page.getByTestId("study-verdicts");
    await section.getByTestId("cmp-primary-card").waitFor();
    const order = await rolesInOrder(page, "study-verdicts");
    expect(order[0]).toBe("primary:cmp-primary-card:p95");
    const line = (await section.getByTestId("cmp-power-line").textContent()) ?? "";
    expect(line, line).toMatch(POWER_LINE);
    expect(line).toMatch(/^With 2 vs 2 runs/);
    await expectDescriptiveApart(page, "study-verdicts", order.filter((o) => o.startsWith("descriptive")).length);
    expect(order.filter((o) => o.startsWith("descriptive")).length).toBeGreaterThan(0);
    await page.screenshot({ path: "/tmp/i34-study.png", fullPage: true });
    await page.close();
  });

  it("study form: the planner says planStudy's line live, with the CV of earlier runs and the family workloads x (targets - 1), amber below 80%", async () => {
    // The study above ran these targets x workload twice each: their p95s' SD / mean per cell, root mean square.
    const runs = await stack.db.run.findMany({ where: { studyId }, select: { targetId: true, summary: true } });
    const p95Of = (summary: unknown) => {
      const s = summary as { successLatencyMs?: { p95: number } | null; latencyMs: { p95: number } };
      return (s.successLatencyMs ?? s.latencyMs).p95;
    };
    const cvs = [...new Set(runs.map((r) => r.targetId))].map((t) => {
      const xs = runs.filter((r) => r.targetId === t).map((r) => p95Of(r.summary));
      const m = (xs[0]! + xs[1]!) / 2;
      return Math.abs(xs[0]! - xs[1]!) / Math.SQRT2 / m;
    });
    const measuredCv = Math.sqrt((cvs[0]! ** 2 + cvs[1]! ** 2) / 2);
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${web}/studies/new`);
    const planner = page.getByTestId("study-planner");
    await planner.waitFor();
    for (const t of ["vp-one", "vp-two"]) await page.locator(`input[name="targets"][value="${t}"]`).check();
    await page.locator('input[name="workloads"][value="vp-tiny"]').check();
    await page.locator('input[name="repetitions"]').fill("3");
    // Until the user states one, the CV is the one earlier runs measured (the box shows it to a tenth of a percent).
    await expect.poll(() => page.getByTestId("plan-cv").inputValue()).toBe(String(Math.round(measuredCv * 1000) / 10));
    expect(await planner.textContent()).toContain("measured from 4 earlier runs of 2 target x workload cells");
    const measured = planStudy({ repetitions: 3, cv: Math.round(measuredCv * 1000) / 1000, margin: 0.05, effect: 0.1, familySize: 1 });
    await expect.poll(() => planner.getByTestId("study-planner-line").textContent()).toBe(measured.text);
    await page.getByTestId("plan-cv").fill("5");
    const expected = planStudy({ repetitions: 3, cv: 0.05, margin: 0.05, effect: 0.1, familySize: 1 });
    await expect.poll(() => planner.getByTestId("study-planner-line").textContent()).toBe(expected.text);
    expect(await planner.textContent()).toContain("as you stated");
    expect(expected.power).toBeLessThan(0.8);
    expect(await planner.getByTestId("study-planner-warning").count()).toBe(1);
    // The CV stated by the user moves the line; enough repetitions lift the warning.
    await page.getByTestId("plan-cv").fill("2");
    const enough = planStudy({ repetitions: 3, cv: 0.02, margin: 0.05, effect: 0.1, familySize: 1 });
    await expect.poll(() => planner.getByTestId("study-planner-line").textContent()).toBe(enough.text);
    await page.getByTestId("plan-cv").fill("5");
    await page.locator('input[name="repetitions"]').fill(String(expected.repetitionsNeeded));
    await expect.poll(() => planner.getByTestId("study-planner-warning").count()).toBe(0);
    await page.locator('input[name="repetitions"]').fill("3");
    await page.screenshot({ path: "/tmp/i34-study-form.png", fullPage: true });
    await page.close();
  });
});
