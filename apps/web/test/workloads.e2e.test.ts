// The workload and target forms in a real browser (Debian's Chromium driven by
// playwright-core) against the built web app and a real worker (which checks
// user scripts with k6): the load profile drawn before saving, a script with a
// syntax error refused with k6's message and nothing saved, an uploaded script
// saved, and the API's 422 field errors shown next to the target form's fields.
import { iotSpike, workloadSpec } from "@opsbench/core";
import { NotFoundError } from "@opsbench/db";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStack, launchBrowser, testWebUrl } from "../../../tests/helpers";

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

async function newPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  return { page, errors };
}

/** Whether a workload of that name is stored. */
const stored = async (name: string) =>
  stack.scope.workloads.byName(name).then(
    () => true,
    (err) => {
      if (err instanceof NotFoundError) return false;
      throw err;
    },
  );

const BROKEN = 'import http from "k6/http";\nexport default function () {\n  http.get("x" ;\n}\n';
const VALID = `import http from "k6/http";
import { check } from "k6";
export const options = { vus: 1, iterations: 3 };
export default function () {
  check(http.get(__ENV.OPSBENCH_BASE_URL + "/"), { "status is 200": (r) => r.status === 200 });
}
`;

describe("workload form", () => {
  it("draws the IoT Spike preset's profile at time scale 0.1 before saving, and saves exactly its stages", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${web}/workloads/new`);
    await page.getByTestId("preset-select").selectOption("iot-spike");
    await page.locator('input[name="timeScale"]').fill("0.1");
    const chart = page.getByTestId("profile-chart");
    await chart.locator("svg .recharts-line-curve").first().waitFor();

    const expected = iotSpike({ timeScale: 0.1 });
    expect(expected.kind).toBe("ramping-vus");
    const stages = expected.kind === "ramping-vus" ? expected.stages : [];
    // One point at 0 and one per stage; 30 minutes scaled to 3.
    expect(Number(await chart.getAttribute("data-points"))).toBe(stages.length + 1);
    expect(Number(await chart.getAttribute("data-points"))).toBeGreaterThan(0);
    expect(Number(await chart.getAttribute("data-end-seconds"))).toBe(180);
    expect(await chart.locator(".recharts-line-dot").count()).toBe(stages.length + 1);
    expect(await page.getByTestId("planned-seconds").getAttribute("data-seconds")).toBe("180");
    // The spike's 100 VUs is on the y axis (the x axis is in m:ss).
    expect(await chart.locator(".recharts-cartesian-axis-tick-value").allTextContents()).toContain("100");
    await page.screenshot({ path: "/tmp/workloads-e2e-spike.png", fullPage: true });

    await page.locator('input[name="name"]').fill("spike-tenth");
    await page.getByTestId("workload-save").click();
    await page.waitForURL(/\/workloads\?saved=spike-tenth$/);
    expect(await page.locator('[data-testid="workload-row"][data-name="spike-tenth"]').count()).toBe(1);
    const saved = workloadSpec.parse((await stack.scope.workloads.byName("spike-tenth")).spec);
    expect(saved.kind === "ramping-vus" && saved.stages).toEqual(stages);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("refuses a script with a syntax error with the engine's message and saves nothing; saves an uploaded valid script", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${web}/workloads/new`);
    await page.getByTestId("mode-script").click();
    await page.locator('input[name="name"]').fill("broken-script");
    await page.getByTestId("script-source").fill(BROKEN);
    await page.getByTestId("workload-save").click();
    const shown = page.getByTestId("script-error");
    await shown.waitFor({ timeout: 40_000 });
    // The engine's message names the file, line and column.
    expect(await shown.textContent()).toContain('script.js:3:16: Expected ")" but found ";"');
    expect(await shown.textContent()).toContain("nothing was saved");
    expect(page.url()).toBe(`${web}/workloads/new`);
    expect(await stored("broken-script")).toBe(false);
    await page.screenshot({ path: "/tmp/workloads-e2e-script-error.png", fullPage: true });

    // Upload a file instead: it replaces the text, names the workload after the file, and passes k6's check.
    await page.locator('input[name="name"]').fill("");
    await page
      .getByTestId("script-file")
      .setInputFiles({ name: "Checkout-Flow.js", mimeType: "text/javascript", buffer: Buffer.from(VALID) });
    await expect.poll(() => page.getByTestId("script-source").inputValue()).toBe(VALID);
    expect(await page.locator('input[name="name"]').inputValue()).toBe("checkout-flow");
    await page.getByTestId("workload-save").click();
    await page.waitForURL(/\/workloads\?saved=checkout-flow$/, { timeout: 40_000 });
    const w = await stack.scope.workloads.byName("checkout-flow");
    expect(w.spec).toEqual({ kind: "script", source: VALID });
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("target form", () => {
  it("shows the API's 422 issues next to their fields and saves nothing; saves a valid local-function target", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${web}/targets/new`);
    await page.locator('input[name="name"]').fill("form-hpa");
    await page.locator('input[name="minReplicas"]').fill("3");
    await page.locator('input[name="maxReplicas"]').fill("2");
    await page.getByTestId("target-save").click();
    const err = page.getByTestId("error-spec.minReplicas");
    await err.waitFor();
    expect(await err.textContent()).toBe("minReplicas (3) is above maxReplicas (2)");
    // Next to its field: inside the same labelled control.
    expect(await page.locator('[data-field="spec.minReplicas"] [data-testid="error-spec.minReplicas"]').count()).toBe(1);
    expect(await page.locator('input[name="minReplicas"]').getAttribute("aria-invalid")).toBe("true");
    expect((await stack.scope.targets.list()).map((t) => t.name)).not.toContain("form-hpa");

    // An empty required field is named too.
    await page.locator('input[name="minReplicas"]').fill("1");
    await page.locator('input[name="autoscaler.targetCpuPercent"]').fill("");
    await page.getByTestId("target-save").click();
    await page.getByTestId("error-spec.autoscaler.targetCpuPercent").filter({ hasText: "required" }).waitFor();
    expect(await page.getByTestId("error-spec.minReplicas").count()).toBe(0);
    await page.screenshot({ path: "/tmp/targets-e2e-errors.png", fullPage: true });

    await page.getByTestId("target-kind").selectOption("local-function");
    await page.locator('input[name="name"]').fill("form-fn");
    await page.getByTestId("target-platform").selectOption("lambda");
    await page.locator('input[name="maxInstances"]').fill("3");
    await page.locator('input[name="idleTimeoutMs"]').fill("5000");
    await page.locator('input[name="concurrency"]').fill("0");
    await page.getByTestId("target-save").click();
    await page.getByTestId("error-spec.concurrency").waitFor();
    expect((await stack.scope.targets.list()).map((t) => t.name)).not.toContain("form-fn");
    await page.locator('input[name="concurrency"]').fill("");
    await page.getByTestId("target-save").click();
    await page.waitForURL(/\/targets\?saved=form-fn$/);
    const t = await stack.scope.targets.byName("form-fn");
    expect(t.kind).toBe("local-function");
    expect(t.spec).toEqual({
      app: "cpu-loop/node-http",
      platform: "lambda",
      maxInstances: 3,
      idleTimeoutMs: 5000,
      env: {},
      startTimeoutMs: 10_000,
    });
    expect(await page.locator('[data-testid="target-row"][data-name="form-fn"]').textContent()).toContain(
      "lambda: concurrency 1 per instance, 0..3 instances; idle timeout 5 s",
    );
    expect(errors).toEqual([]);
    await page.close();
  });
});
