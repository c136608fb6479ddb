// Every page of the web app, in a real browser at 1280 and 1920 wide, checked by axe-core (the rules of WCAG 2 A/AA
// and axe's best practices): no serious or critical violation. Data: two runs imported from k6 files this test
// writes (the real `opsbench import k6`), a small real study (two targets, 2 repetitions), a share link of the
// comparison. Then what axe does not check: the type sizes (14 px text, 13 px tables), the page column's width, the
// navigation's current section, the share popover closing on Escape and an outside click, a form's defaults shown
// as values marked "default", labelled sign-in and sign-up fields. Screenshots go to /tmp/shots35/h6-*.png.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import axe from "axe-core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { studyInput } from "@opsbench/core";
import { makeSetupToken } from "@opsbench/db";
import { createStudyQueue, startStudy } from "@opsbench/jobs";
import { clickUntilVisible, launchBrowser, openTestStack, shortRamp, taewaTarget, testRedisUrl, testWebUrl } from "../../../tests/helpers";
import { importK6Requests, type WrittenRequest } from "../../../tests/k6-result-files";

const web = testWebUrl();
const SHOTS = "/tmp/shots35";
const WIDTHS = [1280, 1920] as const;
let stack: Awaited<ReturnType<typeof openTestStack>>;
let studyQueue: ReturnType<typeof createStudyQueue>;
let browser: Browser;
let dir: string;
const T0 = Date.UTC(2026, 10, 29, 4, 0, 0);
const runs: string[] = [];
let studyId = "";
let shareUrl = "";
let setupToken = "";

/** 30 s at 10 req/s; latencies 40..79 ms plus `slow`. */
const requests = (slow: number): WrittenRequest[] =>
  Array.from({ length: 300 }, (_, i) => ({ atMs: i * 100, ms: 40 + ((i * 7) % 40) + slow, ok: true }));

beforeAll(async () => {
  stack = await openTestStack();
  studyQueue = createStudyQueue(testRedisUrl());
  browser = await launchBrowser();
  await mkdir(SHOTS, { recursive: true });
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-a11y-"));
  runs.push(await importK6Requests(dir, "a11y-a", requests(0), { t0: T0 }));
  runs.push(await importK6Requests(dir, "a11y-b", requests(15), { t0: T0 + 60_000 }));
  await stack.scope.targets.put({ name: "a11y-endpoint", kind: "endpoint", spec: { url: "http://127.0.0.1:9" } });
  const { study } = await startStudy(
    stack.scope,
    studyQueue,
    studyInput.parse({
      name: "a11y study",
      targets: [taewaTarget("a11y-one", { replicas: 1 }), taewaTarget("a11y-two", { replicas: 2 })],
      workloads: [shortRamp("a11y-tiny", { vus: 2, holdSeconds: 3, path: "/?n=2000" })],
      repetitions: 2,
      order: "interleaved-random",
      seed: 7,
      cooldownSeconds: 0,
    }),
  );
  studyId = study.id;
  // A paused schedule of the study, with a tick that ran and one skipped (its reason shown on the page).
  const schedule = await stack.scope.schedules.create({
    name: "a11y nightly",
    what: { kind: "study", studyId },
    cron: "0 3 * * *",
    timeZone: "Europe/Berlin",
    paused: true,
  });
  await stack.db.scheduleTick.createMany({
    data: [
      { scheduleId: schedule.id, tickAt: new Date(T0), outcome: "RAN", studyId },
      {
        scheduleId: schedule.id,
        tickAt: new Date(T0 + 86_400_000),
        outcome: "SKIPPED",
        reason: `the previous study ${studyId} is still running`,
      },
    ],
  });
  const until = Date.now() + 400_000;
  for (;;) {
    const s = await stack.db.study.findUniqueOrThrow({ where: { id: studyId }, include: { runs: true } });
    const done = (status: string) => ["SUCCEEDED", "FAILED", "ABORTED"].includes(status);
    if (done(s.status) && s.runs.every((r) => done(r.status))) break;
    if (Date.now() > until) throw new Error(`study ${studyId} still ${s.status}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const share = await fetch(`${web}/api/v1/shares`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind: "comparison", subject: { groups: [{ runIds: [runs[0]] }, { runIds: [runs[1]] }] }, title: "a11y" }),
  });
  expect(share.status).toBe(201);
  shareUrl = ((await share.json()) as { url: string }).url;
  // The sign-up form is shown only to the holder of the setup link while the server has no account.
  setupToken = (await makeSetupToken(stack.db)) ?? "";
}, 450_000);
afterAll(async () => {
  await browser?.close();
  await studyQueue?.close();
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const compareQuery = () => `g=A:${runs[0]}&g=B:${runs[1]}`;

/** Every page: its name (for the screenshots and messages) and its path. */
const pages = (): Array<[string, string]> => [
  ["home", "/"],
  ["targets", "/targets"],
  ["target-new", "/targets/new"],
  ["target-edit", "/targets/a11y-endpoint/edit"],
  ["workloads", "/workloads"],
  ["workload-new", "/workloads/new"],
  ["workload", "/workloads/a11y-tiny"],
  ["workload-edit", "/workloads/a11y-tiny/edit"],
  ["run", `/runs/${runs[0]}`],
  ["studies", "/studies"],
  ["study-new", "/studies/new"],
  ["study", `/studies/${studyId}`],
  ["study-tables", `/studies/${studyId}/tables`],
  ["schedules", "/schedules"],
  ["compare", `/compare?${compareQuery()}`],
  ["series", "/series"],
  // The study's runs of one target and workload form a series by themselves (docs/trends.md).
  ["series-trend", "/series/a11y-one~a11y-tiny"],
  ["report", `/compare/report?${compareQuery()}`],
  ["shares", "/share"],
  ["share-view", new URL(shareUrl).pathname],
  ["settings", "/settings"],
  ["audit", "/audit"],
  ["api-docs", "/api-docs"],
  ["sign-in", "/sign-in"],
  ["sign-up", `/sign-up?setup=${setupToken}`],
  ["not-found", "/no-such-page"],
];

/** How many pages `pages()` lists (its ids come from the set-up, its length does not). */
const PAGE_COUNT = 26;

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string; summary: string }>;
}

/** Opens `url` at `width` and waits until its data and charts are in (no loading skeleton, the network quiet). */
async function open(width: number, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 1000 } });
  const res = await page.goto(`${web}${url}`, { waitUntil: "networkidle" });
  expect(res?.status(), url).toBeLessThan(url === "/no-such-page" ? 500 : 400);
  await page.getByTestId("page-loading").waitFor({ state: "detached" });
  // Charts draw after their data arrives; give recharts its animation frame.
  await page.waitForTimeout(300);
  return page;
}

/** axe-core's serious and critical violations on the page, with the selector and the reason of each node. */
async function seriousViolations(page: Page): Promise<Violation[]> {
  // Once a page: a page checked again at another width has it already.
  if (!(await page.evaluate("typeof axe !== 'undefined'"))) await page.addScriptTag({ content: axe.source });
  const found = await page.evaluate<Violation[]>(`
    axe.run(document, { resultTypes: ["violations"] }).then((r) =>
      r.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary || "" })),
      })),
    )`);
  return found.filter((v) => v.impact === "serious" || v.impact === "critical");
}

const describeViolations = (name: string, width: number, vs: Violation[]) =>
  vs
    .map(
      (v) =>
        `${name} @${width}: ${v.id} (${v.impact}): ${v.help}\n${v.nodes
          .slice(0, 8)
          .map((n) => `    ${n.target}\n      ${n.summary.replaceAll("\n", "\n      ")}`)
          .join("\n")}${v.nodes.length > 8 ? `\n    … and ${v.nodes.length - 8} more` : ""}`,
    )
    .join("\n");

describe("accessibility and look", () => {
  it("checks every page the list names", () => expect(pages()).toHaveLength(PAGE_COUNT));

  // Each page loads once, at the first width, and is checked again after the window is widened to the second, as a
  // user's window is: a load, its hydration and its data cost more than axe's run (26 loads fewer than a load a width).
  // Three pages at a time: most of a page's seconds are waits (the network quiet, the charts' frames).
  it(
    `every page at ${WIDTHS.join(" and ")} px wide: no serious or critical axe-core violation`,
    async () => {
      const checkPage = async ([name, url]: [string, string]): Promise<string[]> => {
        const report: string[] = [];
        const page = await open(WIDTHS[0], url);
        for (const width of WIDTHS) {
          if (width !== WIDTHS[0]) {
            await page.setViewportSize({ width, height: 1000 });
            // Charts redraw at the new width on their resize observer's next frame.
            await page.waitForTimeout(300);
          }
          const found = await seriousViolations(page);
          if (found.length > 0) report.push(describeViolations(name, width, found));
          if (["home", "run", "sign-in", "compare", "study", "target-new"].includes(name))
            await page.screenshot({ path: `${SHOTS}/h6-${name}-${width}.png`, fullPage: true });
        }
        await page.close();
        return report;
      };
      const queue = pages();
      const reports: string[][] = [];
      await Promise.all(
        Array.from({ length: 3 }, async () => {
          for (let next = queue.shift(); next; next = queue.shift()) reports.push(await checkPage(next));
        }),
      );
      const report = reports.flat();
      if (report.length > 0) console.log(report.join("\n\n"));
      expect(report, report.join("\n\n")).toEqual([]);
      expect(reports).toHaveLength(PAGE_COUNT);
      // A bound from the work, not from a quiet machine: each of the 26 pages loads, hydrates and runs axe twice (a
      // few seconds quiet, up to 30 s on a machine busy with other jobs).
    },
    PAGE_COUNT * 30_000,
  );

  it("text is 14 px, tables 13 px; the column uses up to 1,600 px of a 1920 px screen", async () => {
    const page = await open(1920, "/targets");
    const size = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((e) => getComputedStyle(e).fontSize);
    expect(await size('nav[aria-label="Main"] a[href="/targets"]')).toBe("14px");
    expect(await size("table td")).toBe("13px");
    const main = await page.locator("main").boundingBox();
    expect(main!.width).toBe(1600);
    await page.close();
  });

  it("the navigation marks the current section with aria-current and a visible style", async () => {
    for (const [url, section] of [
      ["/", "Runs"],
      [`/runs/${runs[0]}`, "Runs"],
      [`/studies/${studyId}`, "Studies"],
      ["/targets/new", "Targets"],
      [`/compare?${compareQuery()}`, "Compare"],
    ] as const) {
      const page = await open(1280, url);
      const current = page.locator('nav[aria-label="Main"] [aria-current="page"]');
      expect(await current.allTextContents(), url).toEqual([section]);
      const style = await current.evaluate((e) => getComputedStyle(e).borderBottomColor);
      const other = await page
        .locator('nav[aria-label="Main"] a:not([aria-current])', { hasText: "Workloads" })
        .evaluate((e) => getComputedStyle(e).borderBottomColor);
      expect(style, url).not.toBe(other);
      await page.close();
    }
  });

  it("the share popover closes on Escape (focus back on its button) and on a click outside it", async () => {
    const page = await open(1280, `/compare?${compareQuery()}`);
    const button = page.getByTestId("share-button");
    // The first click may come before hydration (demo.test, share.e2e do the same).
    await clickUntilVisible(button, page.getByTestId("share-panel"));
    await page.keyboard.press("Escape");
    await page.getByTestId("share-panel").waitFor({ state: "detached", timeout: 2_000 });
    expect(await button.evaluate((b) => b === document.activeElement)).toBe(true);
    await button.click();
    await page.getByTestId("share-panel").waitFor();
    // A click inside keeps it open; one outside closes it.
    await page.getByTestId("share-panel").locator("p").first().click();
    expect(await page.getByTestId("share-panel").count()).toBe(1);
    await page.locator("main h1").first().click();
    await page.getByTestId("share-panel").waitFor({ state: "detached", timeout: 2_000 });
    await page.close();
  });

  it("an empty number box shows its default as a value marked 'default', gone once typed over", async () => {
    const page = await open(1280, "/targets/new");
    await page.getByTestId("target-kind").selectOption("local-function");
    const field = page.locator('[data-field="spec.maxQueue"]');
    const shown = field.getByTestId("shown-default");
    expect(await shown.textContent()).toBe("1000default");
    expect(await field.locator("input").getAttribute("placeholder")).toBe("1000 (default)");
    expect(await shown.evaluate((e) => getComputedStyle(e).color)).not.toBe(
      await field.locator("input").evaluate((e) => getComputedStyle(e, "::placeholder").color),
    );
    await field.locator("input").fill("50");
    expect(await shown.count()).toBe(0);
    await page.close();
  });

  it("the sign-in and sign-up fields have visible labels", async () => {
    for (const [url, names] of [
      ["/sign-in", ["Email", "Password"]],
      [`/sign-up?setup=${setupToken}`, ["Name", "Email", "Password"]],
    ] as const) {
      const page = await open(1280, url);
      for (const label of names) {
        const box = page.getByLabel(label, { exact: true });
        expect(await box.count(), `${url} ${label}`).toBe(1);
        expect(await page.getByText(label, { exact: true }).isVisible(), `${url} ${label}`).toBe(true);
      }
      await page.close();
    }
  });
});
