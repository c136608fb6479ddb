// A workload's page and its edit form in a real browser (Debian's Chromium driven by playwright-core) against the
// built web app and a real worker (it checks scripts with k6): a saved script read back as saved, a preset's
// compiled k6 script and profile, an edit that the page then shows, the hint for a script that names a loopback
// address, field errors that go when the field is fixed, defaults shown as values, and home without JSON.
import { compileK6Script, iotSpike, workloadSpec } from "@opsbench/core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openTestStack, taewaTarget, testWebUrl } from "../../../tests/helpers";

const web = testWebUrl();
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;

beforeAll(async () => {
  stack = await openTestStack();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function newPage(width = 1280): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width, height: 1000 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  return { page, errors };
}

const LOOPBACK_SCRIPT = `import http from "k6/http";
export const options = { vus: 1, iterations: 2 };
export default function () {
  http.get("http://127.0.0.1:8080/items?page=1");
}
`;
const BASE_URL_SCRIPT = `import http from "k6/http";
export const options = { vus: 1, iterations: 2 };
export default function () {
  http.get(__ENV.OPSBENCH_BASE_URL + "/items");
}
`;

describe("workload page", () => {
  it("reads a saved script back as saved, with the loopback hint for 127.0.0.1 and none for OPSBENCH_BASE_URL", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${web}/workloads/new`);
    await page.getByTestId("mode-script").click();
    await page.locator('input[name="name"]').fill("loopback-script");
    await page.getByTestId("script-source").fill(BASE_URL_SCRIPT);
    expect(await page.getByTestId("script-loopback-hint").count()).toBe(0);
    await page.getByTestId("script-source").fill(LOOPBACK_SCRIPT);
    // In the form, before saving: a warning, and the save still goes through.
    const formHint = page.getByTestId("script-loopback-hint");
    await formHint.waitFor();
    expect(await formHint.getAttribute("data-hosts")).toBe("127.0.0.1");
    await page.screenshot({ path: "/tmp/shots35/h5-form-loopback-1280.png", fullPage: true });
    await page.getByTestId("workload-save").click();
    await page.waitForURL(/\/workloads\?saved=loopback-script$/, { timeout: 40_000 });

    // The list links to the page; the page shows the script exactly as saved, and the hint.
    await page.locator('[data-testid="workload-row"][data-name="loopback-script"]').getByTestId("workload-link").click();
    await page.waitForURL(`${web}/workloads/loopback-script`);
    expect(await page.getByTestId("workload-script").textContent()).toBe(LOOPBACK_SCRIPT);
    expect(await page.getByTestId("script-loopback-hint").getAttribute("data-hosts")).toBe("127.0.0.1");
    expect(await page.getByTestId("workload-description").textContent()).toContain("own k6 script (6 lines)");
    expect(await page.getByTestId("workload-runs-empty").count()).toBe(1);

    await stack.scope.workloads.put({ name: "base-url-script", spec: { kind: "script", source: BASE_URL_SCRIPT } });
    await page.goto(`${web}/workloads/base-url-script`);
    expect(await page.getByTestId("workload-script").textContent()).toBe(BASE_URL_SCRIPT);
    expect(await page.getByTestId("script-loopback-hint").count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows a preset's profile, compiled k6 script and runs; an edit changes it and the page shows the change", async () => {
    const spike = iotSpike({ timeScale: 0.1 });
    const stages = spike.kind === "ramping-vus" ? spike.stages : [];
    const w = await stack.scope.workloads.put({ name: "spike-page", spec: spike });
    // A run made before the edit (its copy of the spec is the one it ran).
    const run = await stack.db.run.create({
      data: { workspaceId: stack.scope.workspaceId, workloadId: w.id, status: "SUCCEEDED", workloadSpec: spike },
    });

    for (const width of [1280, 1920]) {
      const { page, errors } = await newPage(width);
      await page.goto(`${web}/workloads/spike-page`);
      const chart = page.getByTestId("profile-chart");
      await chart.locator("svg .recharts-line-curve").first().waitFor();
      // One point at 0 and one per stage; 30 minutes scaled by 0.1 is 180 s.
      expect(Number(await chart.getAttribute("data-points"))).toBe(stages.length + 1);
      expect(Number(await chart.getAttribute("data-end-seconds"))).toBe(180);
      expect(await page.getByTestId("planned-seconds").getAttribute("data-seconds")).toBe("180");
      expect(await page.getByTestId("workload-compiled-script").textContent()).toBe(compileK6Script(workloadSpec.parse(w.spec)));
      expect(await page.getByTestId("workload-description").textContent()).toContain(`up to 100 VUs in ${stages.length} stages over 3m`);
      const runRow = page.locator(`[data-testid="workload-run-row"][data-run-id="${run.id}"]`);
      expect(await runRow.textContent()).toContain("current");
      expect(await runRow.locator(`a[href="/runs/${run.id}"]`).count()).toBe(1);
      await page.screenshot({ path: `/tmp/shots35/h5-workload-${width}.png`, fullPage: true });
      expect(errors).toEqual([]);
      await page.close();
    }

    const { page, errors } = await newPage();
    await page.goto(`${web}/workloads/spike-page`);
    await page.getByRole("link", { name: "Edit" }).click();
    await page.waitForURL(`${web}/workloads/spike-page/edit`);
    // The saved stages are in the Build tab's boxes; the spike is stage 3.
    expect(await page.getByLabel("stage 3 target").inputValue()).toBe("100");
    // A field emptied and saved is named; it goes as soon as the field is fixed, before saving again.
    await page.getByLabel("stage 1 duration").fill("");
    await page.getByTestId("workload-save").click();
    await page.getByTestId("error-spec.stages.0").waitFor();
    await page.screenshot({ path: "/tmp/shots35/h5-edit-error-1280.png", fullPage: true });
    await page.getByLabel("stage 1 duration").fill(stages[0]!.duration);
    await expect.poll(() => page.getByTestId("error-spec.stages.0").count()).toBe(0);

    await page.getByLabel("stage 3 target").fill("150");
    await page.getByLabel("stage 4 target").fill("150");
    await page.locator('input[name="path"]').fill("/spike");
    await page.getByTestId("workload-save").click();
    await page.waitForURL(`${web}/workloads/spike-page?saved=1`);

    const edited = workloadSpec.parse((await stack.scope.workloads.byName("spike-page")).spec);
    if (edited.kind !== "ramping-vus" || spike.kind !== "ramping-vus") throw new Error("the edit changed the kind");
    expect(edited.stages.map((s) => s.target)).toEqual(spike.stages.map((s, i) => (i === 2 || i === 3 ? 150 : s.target)));
    // What the boxes do not show is kept: the request's name and the ramp-down.
    expect(edited.requests).toEqual([{ ...spike.requests[0], path: "/spike" }]);
    expect(edited.gracefulRampDown).toBe(spike.gracefulRampDown);

    expect(await page.getByTestId("workload-description").textContent()).toContain("up to 150 VUs");
    expect(await page.getByTestId("workload-description").textContent()).toContain("GET /spike");
    expect(await page.getByTestId("workload-compiled-script").textContent()).toContain("/spike");
    // The y axis reaches the new peak (its ticks are round numbers; the x axis's are m:ss).
    const ticks = await page.getByTestId("profile-chart").locator(".recharts-cartesian-axis-tick-value").allTextContents();
    expect(Math.max(...ticks.map(Number).filter(Number.isFinite))).toBeGreaterThanOrEqual(150);
    expect(await page.locator(`[data-testid="workload-run-row"][data-run-id="${run.id}"]`).textContent()).toContain("earlier version");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows the Build tab's defaults as values marked default", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${web}/workloads/new`);
    await page.getByTestId("mode-custom").click();
    expect(await page.locator('input[name="requestTimeout"]').inputValue()).toBe("60s");
    const timeout = page.locator('[data-field="spec.requestTimeout"]');
    expect(await timeout.getByTestId("default-mark").count()).toBe(1);
    await page.screenshot({ path: "/tmp/shots35/h5-form-defaults-1280.png", fullPage: true });
    await page.locator('input[name="requestTimeout"]').fill("30s");
    expect(await timeout.getByTestId("default-mark").count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("home", () => {
  it("says what each target and workload does in words, not JSON", async () => {
    await stack.scope.workloads.put({
      name: "home-const",
      spec: workloadSpec.parse({ kind: "constant-vus", vus: 7, duration: "45s", requests: [{ name: "r", path: "/home" }] }),
    });
    await stack.scope.targets.put(taewaTarget("home-service"));
    const { page, errors } = await newPage();
    await page.goto(`${web}/`);
    // The target in its kind's words (the targets list's describer): replicas and autoscaler, no JSON.
    const target = page.locator('[data-testid="targets-list"] [data-testid="spec-item"][data-name="home-service"]');
    expect(await target.getByTestId("spec-description").textContent()).toContain("2 replica(s); no autoscaler");
    const item = page.locator('[data-testid="workloads-list"] [data-testid="spec-item"][data-name="home-const"]');
    expect(await item.getByTestId("spec-description").textContent()).toBe("closed model: 7 VUs for 45s; each iteration sends GET /home");
    expect(await item.locator('a[href="/workloads/home-const"]').count()).toBe(1);
    // The run of spike-page (made above) leads to its workload's page.
    expect(await page.locator('[data-testid="runs-table"] a[href="/workloads/spike-page"]').count()).toBe(1);
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).not.toContain('{"');
    expect(text).not.toContain('"kind"');
    await page.screenshot({ path: "/tmp/shots35/h5-home-1280.png", fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});
