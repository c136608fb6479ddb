// Share links in a real browser: made from the comparison page, opened in a fresh
// browser context (no cookies, no account), they show the comparison and nothing
// else: no other run's id, no target secret. Revoked, they answer 404.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRun } from "@opsbench/jobs";
import { clickUntilVisible, openTestStack, shortRamp, taewaTarget, waitForFinal, launchBrowser, testWebUrl } from "../../../tests/helpers";

const web = testWebUrl();
const SECRET = "s3cr3t-value";
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;
let shared: { a: string; b: string };
let other: string;

beforeAll(async () => {
  stack = await openTestStack();
  browser = await launchBrowser();
  // A target whose spec holds a credential: it must never reach a share page.
  await stack.scope.targets.put(taewaTarget("shr-secret", { replicas: 1, env: { SECRET_TOKEN: SECRET } }));
  await stack.scope.targets.put(taewaTarget("shr-plain", { replicas: 1 }));
  await stack.scope.workloads.put(shortRamp("shr-tiny", { vus: 2, holdSeconds: 3, path: "/?n=2000" }));
  const run = async (target: string) => {
    const r = await startRun(stack.scope, stack.queue, { targetName: target, workloadName: "shr-tiny" });
    expect((await waitForFinal(stack.db, r.id)).status, target).toBe("SUCCEEDED");
    return r.id;
  };
  shared = { a: await run("shr-secret"), b: await run("shr-plain") };
  // Same workspace, same target, not in the link.
  other = await run("shr-secret");
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * Opens a URL in a context of its own and records every response body the page
 * loads (`bodies`), and those that carry data rather than code (`data`: HTML, JSON, RSC).
 */
async function openFresh(url: string): Promise<{ ctx: BrowserContext; page: Page; status: number; bodies: string[]; data: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  expect(await ctx.cookies()).toEqual([]);
  const page = await ctx.newPage();
  const bodies: string[] = [];
  const data: string[] = [];
  const pending: Array<Promise<void>> = [];
  page.on("response", (res) => {
    const type = res.headers()["content-type"] ?? "";
    pending.push(
      res.body().then(
        (b) => {
          bodies.push(b.toString("utf8"));
          if (!/javascript|css|image|font/.test(type)) data.push(b.toString("utf8"));
        },
        () => {},
      ),
    );
  });
  const res = await page.goto(url, { waitUntil: "networkidle" });
  await Promise.all(pending);
  return { ctx, page, status: res!.status(), bodies, data };
}

describe("share links", () => {
  let shareUrl = "";
  let shareId = "";

  it("are made from the comparison page and show the comparison, without cookies, leaking no other run and no secret", async () => {
    const app = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const q = new URLSearchParams([
      ["g", `with secret:${shared.a}`],
      ["g", `plain:${shared.b}`],
    ]);
    await app.goto(`${web}/compare?${q}`);
    await clickUntilVisible(app.getByTestId("share-button"), app.getByTestId("share-create"));
    await app.getByTestId("share-create").click();
    shareUrl = await app.getByTestId("share-url").inputValue();
    expect(shareUrl).toMatch(new RegExp(`^${web}/share/[A-Za-z0-9_-]{43}$`));
    await app.getByTestId("share-link").first().waitFor();
    shareId = (await app.getByTestId("share-link").first().getAttribute("data-share-id"))!;
    // The list of links never carries a token.
    const list = await (await fetch(`${web}/api/v1/shares`)).text();
    expect(list).toContain(shareId);
    expect(list).not.toContain(shareUrl.split("/").pop()!);
    await app.close();

    // Env values are write-only: the workspace's own API names the variable, never its value;
    // a target sent back as listed keeps the stored value. The run id is there to be leaked.
    const targets = (await (await fetch(`${web}/api/v1/targets`)).json()) as Array<{ name: string; kind: string; spec: unknown }>;
    expect(JSON.stringify(targets)).toContain("SECRET_TOKEN");
    expect(JSON.stringify(targets)).not.toContain(SECRET);
    const listed = targets.find((t) => t.name === "shr-secret")!;
    const resent = await fetch(`${web}/api/v1/targets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: listed.name, kind: listed.kind, spec: listed.spec }),
    });
    expect(resent.status).toBe(201);
    expect(await resent.text()).not.toContain(SECRET);
    expect(JSON.stringify((await stack.db.target.findFirstOrThrow({ where: { name: "shr-secret" } })).spec)).toContain(SECRET);
    expect(await (await fetch(`${web}/api/v1/runs`)).text()).toContain(other);

    const { ctx, page, status, bodies, data } = await openFresh(shareUrl);
    expect(status).toBe(200);
    await page.getByTestId("share-page").waitFor();
    for (const id of [
      "cmp-chart-latency",
      "cmp-chart-requests",
      "cmp-chart-goodput",
      "cmp-chart-cdf",
      "cmp-chart-box",
      "cmp-chart-infra",
    ]) {
      expect(Number(await page.getByTestId(id).getAttribute("data-points")), id).toBeGreaterThan(0);
    }
    expect(await page.getByTestId("cmp-chart-cdf").locator("path.recharts-line-curve").count()).toBe(2);
    expect(await page.getByTestId("cmp-run-row").count()).toBe(2);
    expect(await page.locator('tr[data-testid^="verdict-"]').count()).toBeGreaterThan(0);
    // Read-only and self-contained: no navigation, no forms, no links into the app.
    expect(await page.locator("nav, form, input, textarea").count()).toBe(0);
    expect(await page.locator("a[href]").count()).toBe(0);

    const html = await page.content();
    const everything = [html, ...bodies].join("\n");
    expect(bodies.length).toBeGreaterThan(1);
    expect(everything).toContain(shared.a);
    expect(everything).toContain(shared.b);
    expect(everything).not.toContain(other);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain("SECRET_TOKEN");
    // The only ids anywhere in the page and its data are the two shared runs'.
    expect([...new Set([html, ...data].join("\n").match(UUID))].sort()).toEqual([shared.a, shared.b].sort());
    await page.screenshot({ path: "/tmp/cmp-share-page.png", fullPage: true });
    await ctx.close();

    // The public JSON route says the same, and no more.
    const token = shareUrl.split("/").pop()!;
    const pub = await fetch(`${web}/api/v1/public/shares/${token}`);
    expect(pub.status).toBe(200);
    expect(pub.headers.get("cache-control")).toContain("no-store");
    const json = await pub.text();
    expect(json).toContain(shared.a);
    expect(json).not.toContain(other);
    expect(json).not.toContain(SECRET);
    expect([...new Set(json.match(UUID))].sort()).toEqual([shared.a, shared.b].sort());
  });

  it("of a single run show only that run", async () => {
    const res = await fetch(`${web}/api/v1/shares`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "run", subject: { runId: shared.a }, title: "one run" }),
    });
    expect(res.status).toBe(201);
    const link = (await res.json()) as { id: string; url: string; token: string };
    const { ctx, page, status, bodies, data } = await openFresh(link.url);
    expect(status).toBe(200);
    expect(await page.getByTestId("share-page").getAttribute("data-kind")).toBe("run");
    expect(Number(await page.getByTestId("cmp-chart-requests").getAttribute("data-points"))).toBeGreaterThan(0);
    // Every id in the page and the data it loads is the run's own.
    expect([...new Set([await page.content(), ...data].join("\n").match(UUID))]).toEqual([shared.a]);
    const everything = [await page.content(), ...bodies].join("\n");
    expect(everything).not.toContain(other);
    expect(everything).not.toContain(shared.b);
    expect(everything).not.toContain(SECRET);
    await ctx.close();
  });

  it("refuse bad input with 422 and a subject outside the workspace likewise", async () => {
    const post = (body: unknown) =>
      fetch(`${web}/api/v1/shares`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const kind = await post({ kind: "everything", subject: {} });
    expect(kind.status).toBe(422);
    expect((await kind.json()).error.issues[0].path).toBe("kind");
    const missing = await post({
      kind: "comparison",
      subject: { groups: [{ runIds: [shared.a] }, { runIds: ["00000000-0000-4000-8000-000000000000"] }] },
    });
    expect(missing.status).toBe(422);
    expect((await missing.json()).error.issues[0].path).toBe("subject.groups.1.runIds.0");
    const before = await stack.db.shareLink.count();
    const bad = await post({ kind: "run", subject: { runId: "x" } });
    expect(bad.status).toBe(422);
    expect(await stack.db.shareLink.count()).toBe(before);
  });

  it("answer 404 once revoked from the list of links, as unknown tokens do", async () => {
    const app = await browser.newPage();
    await app.goto(`${web}/share`);
    const row = app.locator(`[data-testid="share-row"][data-share-id="${shareId}"]`);
    await row.getByTestId("share-revoke").click();
    await row.getByText(/revoked/).waitFor();
    await app.close();

    const { ctx, page, status, bodies } = await openFresh(shareUrl);
    expect(status).toBe(404);
    await page.getByTestId("share-not-found").waitFor();
    expect(await page.locator("a[href]").count()).toBe(0);
    expect([await page.content(), ...bodies].join("\n")).not.toContain(shared.a);
    await ctx.close();

    const token = shareUrl.split("/").pop()!;
    expect((await fetch(`${web}/api/v1/public/shares/${token}`)).status).toBe(404);
    expect((await fetch(`${web}/share/${"A".repeat(43)}`)).status).toBe(404);
    expect((await fetch(`${web}/share/not-a-token`)).status).toBe(404);
    expect((await fetch(`${web}/api/v1/shares/${shareId}`, { method: "DELETE" })).status).toBe(404);
    expect((await fetch(`${web}/api/v1/shares/00000000-0000-4000-8000-000000000000`, { method: "DELETE" })).status).toBe(404);
  });

  it("can be made from the run page, which shows the run's validity flags", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${web}/runs/${shared.b}`);
    await page.getByTestId("run-status").waitFor();
    // Whatever the worker flagged the run with is in the header.
    const stored = (await stack.db.run.findUniqueOrThrow({ where: { id: shared.b }, select: { flags: true } })).flags as Array<{
      code: string;
    }>;
    const shown = await page
      .locator('[data-testid="run-flags"] [data-flag]')
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-flag")));
    for (const f of stored) expect(shown).toContain(f.code);
    await clickUntilVisible(page.getByTestId("share-button"), page.getByTestId("share-create"));
    await page.getByTestId("share-create").click();
    const url = await page.getByTestId("share-url").inputValue();
    await page.close();
    const { ctx, status, bodies, page: pub } = await openFresh(url);
    expect(status).toBe(200);
    expect(await pub.getByTestId("share-page").getAttribute("data-kind")).toBe("run");
    expect([await pub.content(), ...bodies].join("\n")).not.toContain(shared.a);
    await ctx.close();
  });
});
