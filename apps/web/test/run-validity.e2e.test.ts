// The run page's place and validity (issue 35, findings 3 and 9), in a real browser against the built web app.
// Runs are k6 result files written here (every request's latency and outcome chosen) and imported by the real
// `opsbench import k6`; the right answers (which run measured nothing, the baseline deltas) come from what was written.
// A run of a saved target x workload is an import given that pair afterwards (no live run needed); a failed run is
// a run row with its failed step, as the worker leaves it.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { summarize } from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openTestStack, shortRamp, taewaTarget, testWebUrl } from "../../../tests/helpers";
import { importK6Requests, type WrittenRequest } from "../../../tests/k6-result-files";

const web = testWebUrl();
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;
let dir: string;
const T0 = Date.UTC(2026, 10, 28, 6, 0, 0);
const ids: Record<string, string> = {};
const SHOTS = process.env.OPSBENCH_SHOTS_DIR;

/** `n` requests, 5 a second, each `ms` long; the first `failed` of them fail. */
const requests = (n: number, ms: number, failed = 0): WrittenRequest[] =>
  Array.from({ length: n }, (_, i) => ({ atMs: i * 200, ms, ok: i >= failed }));

const PROVISION_ERROR =
  'deploy of "vf-taewa" failed: the container exited with code 1 before its health check passed\n    at deploy (local-service.ts:120)\n    at provision (provision.ts:44)';

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  browser = await launchBrowser();
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-run-validity-"));
  // Every request failed (the 12 script runs of finding 9: a loopback address nothing answers on).
  ids.allFailed = await importK6Requests(dir, "vf-all-failed", requests(20, 3, 20), { t0: T0 });
  // No request at all (k6 ran, its thresholds held, nothing answered): `opsbench import k6` refuses such a file, so
  // the run is the row the worker leaves, its summary made by core's summarize of no cell over a 5 s load.
  const none = await stack.db.run.create({
    data: {
      workspaceId: stack.scope.workspaceId,
      status: "SUCCEEDED",
      source: "k6-import",
      name: "vf-none",
      thresholdsOk: true,
      // As stored: JSON (undefined fields dropped).
      summary: JSON.parse(JSON.stringify(summarize([], 5))),
      finishedAt: new Date(),
    },
  });
  ids.none = none.id;
  // The script behind it named a loopback address instead of __ENV.OPSBENCH_BASE_URL (kept on the run as its workload).
  const loopbackScript = 'import http from "k6/http";\nexport default function () { http.get("http://127.0.0.1:8080/api"); }\n';
  await stack.db.run.update({ where: { id: ids.allFailed }, data: { workloadSpec: { kind: "script", source: loopbackScript } } });
  // Two runs of one target x workload: the earlier all fast and successful, the later slower with 2 of 20 failed.
  ids.previous = await importK6Requests(dir, "vf-previous", requests(20, 50), { t0: T0 });
  ids.current = await importK6Requests(dir, "vf-current", requests(20, 80, 2), { t0: T0 });

  await stack.scope.targets.put(taewaTarget("vf-taewa"));
  await stack.scope.workloads.put(shortRamp("vf-ramp"));
  const target = await stack.db.target.findFirstOrThrow({ where: { name: "vf-taewa" } });
  const workload = await stack.db.workload.findFirstOrThrow({ where: { name: "vf-ramp" } });
  const study = await stack.scope.studies.createSingleCell({
    name: "vf-study",
    targetId: target.id,
    workloadId: workload.id,
    repetitions: 1,
  });
  const pair = { targetId: target.id, workloadId: workload.id };
  await stack.db.run.update({ where: { id: ids.previous }, data: { ...pair, createdAt: new Date(Date.now() - 60_000) } });
  await stack.db.run.update({ where: { id: ids.current }, data: { ...pair, studyId: study.study.id, repetition: 2 } });
  ids.study = study.study.id;

  const failed = await stack.db.run.create({
    data: { workspaceId: stack.scope.workspaceId, ...pair, status: "FAILED", error: PROVISION_ERROR, finishedAt: new Date() },
  });
  await stack.db.runStep.create({
    data: { runId: failed.id, name: "PROVISION", status: "FAILED", error: PROVISION_ERROR, finishedAt: new Date() },
  });
  ids.failed = failed.id;
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function open(url: string, width = 1280): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 1000 } });
  await page.goto(`${web}${url}`);
  return page;
}

const codes = (flags: Array<{ code: string }>) => flags.map((f) => f.code);

describe("a run that measured nothing", () => {
  for (const which of ["allFailed", "none"] as const)
    it(`${which === "none" ? "with no request" : "whose every request failed"} is a warning, not a plain success: page, list, API`, async () => {
      const id = ids[which]!;
      const api = await (await fetch(`${web}/api/v1/runs/${id}`)).json();
      expect(api.status).toBe("SUCCEEDED");
      expect(api.summary.requests).toBe(which === "none" ? 0 : 20);
      expect(codes(api.flags)).toContain("no-successful-request");
      const list = (await (await fetch(`${web}/api/v1/runs`)).json()) as Array<{ id: string; flags: Array<{ code: string }> }>;
      expect(codes(list.find((r) => r.id === id)!.flags)).toContain("no-successful-request");

      const page = await open(`/runs/${id}`);
      expect(await page.getByTestId("run-warning").textContent()).toContain("no successful request");
      expect(await page.getByTestId("run-warning").getAttribute("data-flag")).toBe("no-successful-request");
      expect(await page.getByTestId("run-no-success").getAttribute("data-flag")).toBe("no-successful-request");
      expect(await page.getByTestId("run-no-success").textContent()).toContain(
        which === "none" ? "It recorded no request" : "Every one of its 20 requests failed",
      );
      if (which === "allFailed") expect(await page.getByTestId("run-loopback-hint").textContent()).toContain("Its script names 127.0.0.1");
      else expect(await page.getByTestId("run-loopback-hint").count()).toBe(0);
      if (which === "none") {
        // No empty cards or charts: one line says why.
        expect(await page.getByTestId("run-not-measured").textContent()).toContain("No request was recorded");
        expect(await page.getByTestId("summary-requests").count()).toBe(0);
        expect(await page.getByTestId("chart-requests").count()).toBe(0);
      }
      if (SHOTS && which === "allFailed") await page.screenshot({ path: path.join(SHOTS, "h7-no-success-1280.png"), fullPage: true });
      await page.close();

      const home = await open("/");
      expect(await home.locator(`[data-run-id="${id}"]`).getByTestId("run-warning").count()).toBe(1);
      expect(await home.locator(`[data-run-id="${ids.previous}"]`).getByTestId("run-warning").count()).toBe(0);
      if (SHOTS && which === "none") await home.screenshot({ path: path.join(SHOTS, "h7-runs-list-1280.png") });
      await home.close();
    });

  it("is left out of the compare page's verdicts like other flagged runs", async () => {
    const page = await open(`/compare?g=A:${ids.previous}&g=B:${ids.allFailed}`);
    const excluded = page.getByTestId("cmp-verdict-exclusions").getByTestId("cmp-excluded-run");
    expect(await excluded.getAttribute("data-run-id")).toBe(ids.allFailed);
    await page.close();
  });
});

describe("a failed run", () => {
  it("leads with the failed step, its error in words and what to try, and shows no empty cards or charts", async () => {
    const page = await open(`/runs/${ids.failed}`);
    const failure = page.getByTestId("run-failure");
    expect(await failure.getByTestId("run-failed-step").textContent()).toBe("PROVISION");
    expect(await failure.getByTestId("run-failure-cause").textContent()).toBe(PROVISION_ERROR.split("\n")[0]);
    expect(await failure.getByTestId("run-failure-fix").textContent()).toContain("Check the target");
    // It comes before everything but the title: above the run's fields, flags and steps.
    const y = async (id: string) => (await page.getByTestId(id).first().boundingBox())!.y;
    expect(await y("run-failure")).toBeLessThan(await y("run-k6-version"));
    expect(await y("run-failure")).toBeLessThan(await y("step-PROVISION"));
    expect(await page.getByTestId("run-not-measured").textContent()).toContain("failed at PROVISION");
    expect(await page.getByTestId("summary-requests").count()).toBe(0);
    expect(await page.getByTestId("chart-requests").count()).toBe(0);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "h7-failed-run-1280.png"), fullPage: true });
    await page.close();
  });
});

describe("the run page's place", () => {
  it("has breadcrumbs to its study cell, target and workload, and its deltas against the previous run of the pair", async () => {
    const page = await open(`/runs/${ids.current}`);
    const crumbs = page.getByTestId("run-breadcrumbs");
    expect(await crumbs.getByTestId("run-crumb-study").getAttribute("href")).toBe(`/studies/${ids.study}`);
    expect(await crumbs.getByTestId("run-crumb-cell").getAttribute("href")).toBe(`/studies/${ids.study}#study-cell-vf-taewa-vf-ramp`);
    expect(await crumbs.getByTestId("run-crumb-repetition").textContent()).toBe("repetition 2");
    expect(await crumbs.getByTestId("run-crumb-target").getAttribute("href")).toBe("/targets/vf-taewa");
    expect(await crumbs.getByTestId("run-crumb-workload").getAttribute("href")).toBe("/workloads/vf-ramp");

    const strip = page.getByTestId("baseline-strip");
    expect(await strip.getAttribute("data-reference")).toBe("previous");
    expect(await strip.getAttribute("data-reference-run")).toBe(ids.previous);
    // Written: 2 of 20 requests failed against none (+10 points); successes took 80 ms against 50 ms.
    expect(Number(await strip.getByTestId("baseline-delta-failure-share").getAttribute("data-delta"))).toBeCloseTo(10, 6);
    expect(Number(await strip.getByTestId("baseline-delta-p95").getAttribute("data-delta"))).toBeCloseTo(30, 0);
    expect(await strip.getByTestId("baseline-compare").getAttribute("href")).toContain(ids.previous);
    for (const width of [1280, 1920]) {
      await page.setViewportSize({ width, height: 1000 });
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `h7-run-${width}.png`), fullPage: true });
    }
    await page.close();
  });

  it("against the marked baseline when there is one", async () => {
    const marked = await fetch(`${web}/api/v1/runs/${ids.previous}/baseline`, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(marked.status).toBe(200);
    const page = await open(`/runs/${ids.current}`);
    expect(await page.getByTestId("baseline-strip").getAttribute("data-reference")).toBe("baseline");
    await page.close();
  });

  it("opens the comparison with this run as a group, keeps Delete in its menu, and Repeat queues a run of the same pair", async () => {
    const page = await open(`/runs/${ids.current}`);
    const compare = new URL((await page.getByTestId("run-compare-with").getAttribute("href"))!, web);
    expect(compare.pathname).toBe("/compare");
    expect(compare.searchParams.getAll("g")).toEqual([`this run:${ids.current}`]);
    // Delete is not a header button: it is in the closed "⋯" menu, shown once the menu opens.
    expect(await page.getByTestId("run-delete").isVisible()).toBe(false);
    await page.getByTestId("run-menu").locator("summary").click();
    expect(await page.getByTestId("run-delete").isVisible()).toBe(true);

    await page.getByTestId("run-repeat").click();
    await page.waitForURL((u) => /\/runs\/[0-9a-f-]{36}$/.test(u.pathname) && !u.pathname.endsWith(ids.current!), { timeout: 30_000 });
    const repeated = new URL(page.url()).pathname.split("/").pop()!;
    const api = await (await fetch(`${web}/api/v1/runs/${repeated}`)).json();
    expect(api.target.name).toBe("vf-taewa");
    expect(api.workload.name).toBe("vf-ramp");
    expect(api.id).toBe(repeated);
    expect(api.id).not.toBe(ids.current);
    await page.close();
  });
});

describe("a run's provenance (issue 36)", () => {
  const SHA = "9fceb02d0ae598e95dc970b74767f19372d61af8";
  const put = (id: string, body: unknown) =>
    fetch(`${web}/api/v1/runs/${id}/provenance`, {
      method: "PUT",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
    });

  it("is shown under the run's title (short commit, full in its title; branch, PR, build link, labels), nothing without it", async () => {
    const provenance = {
      commit: SHA,
      branch: "vf-main",
      pullRequest: 77,
      buildUrl: "https://ci.example.com/builds/77",
      labels: { env: "staging", "team/owner": "perf" },
    };
    expect((await put(ids.previous!, provenance)).status).toBe(200);
    expect((await put(ids.current!, { commit: "0badc0de", branch: "vf-feature" })).status).toBe(200);
    const page = await open(`/runs/${ids.previous}`);
    const line = page.getByTestId("run-provenance");
    expect(await line.getByTestId("run-provenance-commit").textContent()).toBe(SHA.slice(0, 8));
    expect(await line.getByTestId("run-provenance-commit").getAttribute("title")).toBe(SHA);
    expect(await line.getByTestId("run-provenance-branch").textContent()).toBe("vf-main");
    expect(await line.getByTestId("run-provenance-pr").textContent()).toBe("PR #77");
    const build = line.getByTestId("run-provenance-build");
    expect(await build.getAttribute("href")).toBe(provenance.buildUrl);
    expect(await build.getAttribute("rel")).toBe("noreferrer");
    expect(await line.getByTestId("run-provenance-labels").locator("li").allTextContents()).toEqual(["env=staging", "team/owner=perf"]);
    // Under the title, above the run's fields.
    const y = async (id: string) => (await page.getByTestId(id).first().boundingBox())!.y;
    expect(await y("run-provenance")).toBeGreaterThan(await y("run-target"));
    expect(await y("run-provenance")).toBeLessThan(await y("run-k6-version"));
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "h36-run-provenance-1280.png"), fullPage: false });
    await page.close();

    const bare = await open(`/runs/${ids.none}`);
    expect(await bare.getByTestId("run-target").count()).toBe(1);
    expect(await bare.getByTestId("run-provenance").count()).toBe(0);
    await bare.close();
  });

  it("is the runs list's commit/branch column, and the list's filter form narrows it by branch, commit prefix and label", async () => {
    const home = await open("/");
    const row = home.locator(`[data-run-id="${ids.previous}"]`);
    expect(await row.textContent()).toContain(SHA.slice(0, 8));
    expect(await row.textContent()).toContain("vf-main");
    const all = await home.getByTestId("run-row").count();
    expect(all).toBeGreaterThan(2);

    // The form puts the filter in the URL; the list keeps only the matching run.
    const form = home.getByTestId("run-filter");
    await form.locator('input[name="branch"]').fill("vf-main");
    await form.getByRole("button", { name: "Filter" }).click();
    await home.waitForURL((u) => u.searchParams.get("branch") === "vf-main");
    const shown = async (p: Page) => p.getByTestId("run-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-run-id")));
    expect(await shown(home)).toEqual([ids.previous]);
    if (SHOTS) await home.screenshot({ path: path.join(SHOTS, "h36-runs-filtered-1280.png") });
    await home.close();

    for (const [query, expected] of [
      [`commit=${SHA.slice(0, 7)}`, [ids.previous]],
      ["commit=0BADC0DE", [ids.current]],
      ["label=team%2Fowner%3Dperf", [ids.previous]],
      ["branch=vf-main&label=env%3Dprod", []],
    ] as const) {
      const page = await open(`/?${query}`);
      expect(await shown(page), query).toEqual(expected);
      if (expected.length === 0) expect(await page.getByTestId("runs-none-match").count()).toBe(1);
      await page.close();
    }
    const bad = await open("/?commit=xyz");
    expect(await bad.getByTestId("run-filter-error").textContent()).toContain("commit");
    expect(await bad.getByTestId("run-row").count()).toBe(0);
    await bad.close();
  });
});
