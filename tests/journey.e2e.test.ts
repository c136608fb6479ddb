// The team journey on a server nobody has used yet (sign-in required, no account): the first visitor cannot sign
// up; the sign-up through the one-time setup link becomes the instance admin and owner; the owner invites a viewer by link; the viewer signs up through it, sees no start or
// create buttons and gets 403 from the API; the owner makes an API token on the settings page, with which the CLI
// runs benchmarks on the server (exit 0, and 99 when thresholds fail); a share link of a run opens signed out,
// and answers 404 once revoked. Screenshots of each page land in /tmp/journey/.
import { mkdirSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickUntilVisible, launchBrowser, runOpsbenchWith, shortRamp, taewaTarget } from "./helpers";
import { setupLinkPath, startWebWithoutAccounts } from "./test-identity";

const SHOTS = "/tmp/journey";
const OWNER = { name: "Ada Owner", email: "ada@journey.test", password: "ada-journey-password" };
const VIEWER = { name: "Vic Viewer", email: "vic@journey.test", password: "vic-journey-password" };

let web = "";
let browser: Browser;
let ownerCtx: BrowserContext;
let viewerCtx: BrowserContext;
let owner: Page;
let viewer: Page;

beforeAll(async () => {
  web = await startWebWithoutAccounts();
  browser = await launchBrowser();
  mkdirSync(SHOTS, { recursive: true });
  ownerCtx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  viewerCtx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  owner = await ownerCtx.newPage();
  viewer = await viewerCtx.newPage();
});
afterAll(async () => {
  await browser?.close();
});

const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });

async function signUp(page: Page, who: typeof OWNER) {
  const form = page.getByTestId("sign-up-form");
  await form.locator('input[name="name"]').fill(who.name);
  await form.locator('input[name="email"]').fill(who.email);
  await form.locator('input[name="password"]').fill(who.password);
  await form.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(`${web}/`);
}

/** A fetch from inside the page: the browser's own cookies and Origin, as a script of the app would send it. */
function fetchInPage(page: Page, path: string, method: string, body?: unknown): Promise<number> {
  return page.evaluate(
    async ([p, m, b]) => (await fetch(p, { method: m, headers: { "content-type": "application/json" }, body: b })).status,
    [path, method, body === undefined ? undefined : JSON.stringify(body)] as const,
  );
}

describe("a team's first day on a new server", () => {
  let token = "";
  let runId = "";

  it("the sign-up through the setup link becomes the instance admin and owner of the default workspace", async () => {
    await owner.goto(`${web}/`);
    // No session: every page sends the visitor to sign in.
    expect(new URL(owner.url()).pathname).toBe("/sign-in");
    // The first visitor without the setup link gets no form.
    await owner.goto(`${web}/sign-up`);
    await owner.getByTestId("sign-up-needs-setup").waitFor();
    expect(await owner.getByTestId("sign-up-form").count()).toBe(0);
    await owner.goto(`${web}${await setupLinkPath()}`);
    await owner.getByText("Create the first account (it becomes the instance admin)").waitFor();
    await shot(owner, "01-first-sign-up");
    await signUp(owner, OWNER);
    await owner.goto(`${web}/settings`);
    expect(await owner.getByTestId("signed-in-as").textContent()).toBe(`${OWNER.email} · owner · instance admin`);
    await owner.getByTestId("instance").waitFor();
  });

  it("the owner invites a viewer by link, who signs up through it and joins as a viewer", async () => {
    const invite = owner.getByTestId("invite-form");
    await invite.locator('input[name="email"]').fill(VIEWER.email);
    await invite.locator('select[name="role"]').selectOption("viewer");
    await invite.getByRole("button", { name: "Invite" }).click();
    const link = (await owner.getByTestId("invite-link").textContent()) ?? "";
    expect(link).toMatch(new RegExp(`^${web}/invite/[A-Za-z0-9_-]{43}$`));
    await shot(owner, "02-settings-invited");

    await viewer.goto(link);
    expect(await viewer.getByTestId("invitation").textContent()).toContain(`${VIEWER.email} is invited as viewer`);
    await viewer.getByTestId("accept-sign-up").click();
    await viewer.getByTestId("sign-up-form").waitFor();
    await signUp(viewer, VIEWER);
    await viewer.goto(`${web}/settings`);
    expect(await viewer.getByTestId("signed-in-as").textContent()).toBe(`${VIEWER.email} · viewer`);
    // A viewer manages nobody and nothing of the server.
    expect(await viewer.getByTestId("members").count()).toBe(0);
    expect(await viewer.getByTestId("instance").count()).toBe(0);
  });

  it("the owner makes an API token on the settings page; the CLI runs benchmarks on the server with it", async () => {
    await owner.goto(`${web}/settings`);
    const form = owner.getByTestId("new-token-form");
    await form.locator('input[name="name"]').fill("ci");
    await form.getByRole("button", { name: "Create token" }).click();
    token = (await owner.getByTestId("new-token").textContent()) ?? "";
    expect(token).toMatch(/^obk_/);
    await shot(owner, "03-settings-token");

    const create = async (path: string, body: unknown) => {
      const res = await fetch(`${web}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
      expect(res.status, path).toBe(201);
    };
    await create("/api/v1/targets", taewaTarget("journey-taewa", { replicas: 1 }));
    await create("/api/v1/workloads", shortRamp("journey-ok", { vus: 2, holdSeconds: 1 }));
    await create(
      "/api/v1/workloads",
      shortRamp("journey-strict", { vus: 2, holdSeconds: 1, thresholds: { http_req_duration: ["p(95)<0.001"] } }),
    );

    // DATABASE_URL points nowhere: all of it goes through the server's API, with the token.
    const remote = { OPSBENCH_URL: web, OPSBENCH_TOKEN: token, DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none" };
    // Both at once: the server's worker runs them one after the other (one load at a time).
    const [ok, strict] = await Promise.all([
      runOpsbenchWith(remote, "run", "--target", "journey-taewa", "--workload", "journey-ok", "--json"),
      runOpsbenchWith(remote, "run", "--target", "journey-taewa", "--workload", "journey-strict"),
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    const summary = JSON.parse(ok.stdout) as { id: string; status: string; requests: number };
    expect(summary.status).toBe("SUCCEEDED");
    expect(summary.requests).toBeGreaterThan(0);
    runId = summary.id;
    expect(strict.code, strict.stderr).toBe(99);

    // The token's last use shows on the settings page.
    await owner.reload();
    expect(await owner.getByTestId("token-last-used").first().textContent()).not.toBe("never");
  });

  it("the viewer sees the runs but no start or create buttons, and the API answers 403 to its session", async () => {
    await viewer.goto(`${web}/`);
    await viewer.locator(`[data-testid="run-row"][data-run-id="${runId}"]`).waitFor();
    await shot(viewer, "04-viewer-home");
    expect(await viewer.getByRole("button", { name: "Start run" }).count()).toBe(0);
    expect(await viewer.getByRole("link", { name: "New study" }).count()).toBe(0);
    await viewer.goto(`${web}/targets`);
    await viewer.getByText("journey-taewa").first().waitFor();
    expect(await viewer.getByRole("link", { name: "New target" }).count()).toBe(0);
    await viewer.goto(`${web}/runs/${runId}`);
    await viewer.getByTestId("run-status").waitFor();
    expect(await viewer.getByTestId("share-button").count()).toBe(0);
    await shot(viewer, "05-viewer-run");

    expect(await fetchInPage(viewer, "/api/v1/runs", "GET")).toBe(200);
    expect(await fetchInPage(viewer, "/api/v1/runs", "POST", { target: "journey-taewa", workload: "journey-ok" })).toBe(403);
    expect(await fetchInPage(viewer, "/api/v1/targets", "POST", taewaTarget("viewer-made"))).toBe(403);
    // The owner's page, for comparison, does show the start form.
    await owner.goto(`${web}/`);
    await owner.getByRole("button", { name: "Start run" }).waitFor();
  });

  it("a share link of a run opens signed out, and answers 404 once revoked", async () => {
    await owner.goto(`${web}/runs/${runId}`);
    await clickUntilVisible(owner.getByTestId("share-button"), owner.getByTestId("share-create"));
    await owner.getByTestId("share-create").click();
    const shareUrl = await owner.getByTestId("share-url").inputValue();
    expect(shareUrl).toMatch(new RegExp(`^${web}/share/[A-Za-z0-9_-]{43}$`));
    await shot(owner, "06-owner-share");

    const outsider = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      expect(await outsider.cookies()).toEqual([]);
      const page = await outsider.newPage();
      expect((await page.goto(shareUrl))?.status()).toBe(200);
      await page.getByTestId("share-page").waitFor();
      expect(await page.content()).toContain(runId);
      await shot(page, "07-share-signed-out");
      // The same browser is still signed out everywhere else.
      await page.goto(`${web}/`);
      expect(new URL(page.url()).pathname).toBe("/sign-in");

      await owner.getByTestId("share-revoke").first().click();
      await owner.getByTestId("share-link").first().waitFor({ state: "detached" });
      expect((await page.goto(shareUrl))?.status()).toBe(404);
      await page.getByTestId("share-not-found").waitFor();
      await shot(page, "08-share-revoked");
    } finally {
      await outsider.close();
    }
  });
});
