// The Delete buttons in a real browser: a finished run deleted from its page (the list page
// follows, the run and its rows are gone), and on the targets page a target that a run uses
// refused with the API's message while an unused one is deleted. Rows are made directly in
// the database: nothing is queued, no k6 runs.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openTestStack, shortRamp, taewaTarget, testWebUrl } from "../../../tests/helpers";

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

async function newPage(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  // The buttons ask first (window.confirm): yes.
  page.on("dialog", (d) => void d.accept());
  return page;
}

describe("Delete buttons", () => {
  it("deletes a finished run from its page, with its rows", async () => {
    const { workspaceId } = stack.scope;
    const run = await stack.db.run.create({ data: { workspaceId, status: "SUCCEEDED", source: "k6-import", name: "delete me" } });
    await stack.db.runEvent.create({ data: { runId: run.id, level: "info", message: "x" } });
    const page = await newPage();
    try {
      await page.goto(`${web}/runs/${run.id}`);
      // Delete is in the header's "⋯" menu (never the first button).
      await page.getByTestId("run-menu").locator("summary").click();
      await page.getByTestId("run-delete").click();
      await page.waitForURL(`${web}/`);
      expect(await stack.db.run.count({ where: { id: run.id } })).toBe(0);
      expect(await stack.db.runEvent.count({ where: { runId: run.id } })).toBe(0);
    } finally {
      await page.close();
    }
  });

  it("refuses a target that a run uses, with the API's message, and deletes an unused one", async () => {
    await stack.scope.targets.put(taewaTarget("used-target"));
    await stack.scope.targets.put(taewaTarget("unused-target"));
    await stack.scope.workloads.put(shortRamp("button-load"));
    await stack.scope.runs.create({ targetName: "used-target", workloadName: "button-load" });
    const page = await newPage();
    try {
      await page.goto(`${web}/targets`);
      const used = page.locator('[data-testid="target-row"][data-name="used-target"]');
      await used.getByTestId("target-delete").click();
      await expect.poll(() => used.textContent()).toContain('target "used-target" is used by 1 run(s)');
      expect(await stack.db.target.count({ where: { name: "used-target" } })).toBe(1);

      await page.locator('[data-testid="target-row"][data-name="unused-target"]').getByTestId("target-delete").click();
      await expect.poll(() => page.locator('[data-testid="target-row"][data-name="unused-target"]').count()).toBe(0);
      expect(await stack.db.target.count({ where: { name: "unused-target" } })).toBe(0);
    } finally {
      await page.close();
    }
  });
});
