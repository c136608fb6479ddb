// A stateful app's own check on the run page, in a real browser (Debian's Chromium driven by playwright-core): study
// 004's shop on Restate (benchapps/shop-restate: restate-server, the shop's services and the facade) run by the
// file's real worker and k6, then its run page opened from the built web app. A checkout load leaves the shop
// consistent and the page shows the consistency check passed with the app's message; a run that corrupts stock on
// purpose shows it failed, with the product named among the violations.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openTestStack, testWebUrl } from "../../../tests/helpers";
import { putShopCheckoutLoad, putShopRequests, putShopTarget, runToEnd } from "../../../tests/shop-runs";

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

/** The run's page, once it shows the run final (no reload needed after the run ended). */
async function runPage(runId: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${web}/runs/${runId}`);
  await page
    .getByTestId("run-status")
    .filter({ hasText: /SUCCEEDED/i })
    .waitFor();
  expect(errors).toEqual([]);
  return page;
}

describe("the shop's consistency check on the run page (shop on Restate, real worker and k6)", () => {
  it("after a checkout load: the check is shown passed, with the app's message", async () => {
    // Little stock, so a short load both completes and rolls back checkouts (as apps/worker/test/shop-restate-run.test.ts).
    await putShopTarget(
      stack,
      "page-restate-shop",
      "shop-restate",
      { SHOP_SEED_PRODUCTS: "20", SHOP_SEED_USERS: "20", SHOP_SEED_CARTS: "40", SHOP_SEED_STOCK: "5", SHOP_SEED_CREDITS: "3000" },
      60_000,
    );
    await putShopCheckoutLoad(stack, "page-restate-checkout", 4);
    const view = await runToEnd(stack, "page-restate-shop", "page-restate-checkout", 240_000);
    expect(view.status).toBe("SUCCEEDED");
    expect(view.summary!.appChecks).toEqual([expect.objectContaining({ name: "consistency", ok: true, message: "consistent" })]);

    const page = await runPage(view.id);
    // In the run's header beside the thresholds, and in its own panel.
    expect(await page.getByTestId("run-app-checks-state").textContent()).toBe("passed");
    const panel = page.getByTestId("run-app-checks");
    expect(await panel.getByTestId("app-checks-state").textContent()).toBe("all passed");
    const check = panel.getByTestId("app-check-consistency");
    expect(await check.getAttribute("data-ok")).toBe("true");
    expect(await check.getByTestId("app-check-name").textContent()).toBe("consistency");
    expect(await check.getByTestId("app-check-state").textContent()).toBe("passed");
    expect(await check.getByTestId("app-check-message").textContent()).toBe("consistent");
    expect(await check.getByTestId("app-check-violations").count()).toBe(0);
    await page.screenshot({ path: "/tmp/run-app-check-passed.png", fullPage: true });
    await page.close();
  });

  it("after stock was corrupted on purpose: the check is shown failed, naming the product in its violations", async () => {
    await putShopTarget(
      stack,
      "page-restate-corruptible",
      "shop-restate",
      { SHOP_SEED_PRODUCTS: "10", SHOP_SEED_USERS: "5", SHOP_SEED_CARTS: "10", SHOP_ALLOW_CORRUPTION: "1" },
      60_000,
    );
    await putShopRequests(stack, "page-restate-corrupt", [
      { name: "corrupt", path: "/admin/corrupt", body: { productId: "p3", stockDelta: -2 } },
    ]);
    const view = await runToEnd(stack, "page-restate-corruptible", "page-restate-corrupt", 240_000);
    expect(view.status).toBe("SUCCEEDED"); // a failed check is a result, not a crash
    expect(view.summary!.appChecks).toEqual([expect.objectContaining({ name: "consistency", ok: false, message: "1 violation(s)" })]);

    const page = await runPage(view.id);
    expect(await page.getByTestId("run-app-checks-state").textContent()).toBe("failed: consistency");
    const panel = page.getByTestId("run-app-checks");
    expect(await panel.getByTestId("app-checks-state").textContent()).toBe("1 failed");
    const check = panel.getByTestId("app-check-consistency");
    expect(await check.getAttribute("data-ok")).toBe("false");
    expect(await check.getByTestId("app-check-name").textContent()).toBe("consistency");
    expect(await check.getByTestId("app-check-state").textContent()).toBe("failed");
    expect(await check.getByTestId("app-check-message").textContent()).toBe("1 violation(s)");
    // The violations as a table (open when the check failed): one row, the corrupted product's.
    const rows = check.locator('[data-testid="app-check-violations"] tbody tr');
    expect(await rows.count()).toBe(1);
    // What it is about first (kind, product), then its figures: the stock 2 short of initial - sold.
    const headers = await check.locator('[data-testid="app-check-violations"] th').allTextContents();
    expect(headers.slice(0, 2)).toEqual(["kind", "productId"]);
    const cells = Object.fromEntries(headers.map((h, i) => [h, i]));
    const row = await rows.first().locator("td").allTextContents();
    expect([row[cells.kind!], row[cells.productId!]]).toEqual(["stock", "p3"]);
    expect(Number(row[cells.stock!]) + Number(row[cells.sold!])).toBe(Number(row[cells.initial!]) - 2);
    await page.screenshot({ path: "/tmp/run-app-check-failed.png", fullPage: true });
    await page.close();
  });
});
