// Notifications through the web app (docs/notifications.md): a webhook to a private, link-local or metadata address,
// or an SMTP server on one, is refused when it is saved (422 naming the rule); one to a receiver on loopback (the
// test's OPSBENCH_LOAD_ALLOWED_HOSTS admits 127.0.0.1:1024-65535, as an admin's host:port entry would) answers its
// signing secret once, and "Send test" (the API's and the settings page's button) reaches it signed; a gate the CLI
// reports tripped is delivered to an endpoint subscribed to gate.tripped. The settings page shows the endpoint and
// the delivery log.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickUntilVisible, launchBrowser, openTestStack, testWebUrl } from "../../../tests/helpers";
import { type Received, receiver, signatureVerifies } from "../../../tests/webhook-receiver";

const web = testWebUrl();
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;
let hook: Awaited<ReturnType<typeof receiver>>;
let got: Received[] = [];
let hookUrl = "";

beforeAll(async () => {
  stack = await openTestStack();
  browser = await launchBrowser();
  hook = await receiver();
  got = hook.got;
  hookUrl = hook.url;
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await hook?.close();
});

/** An answer's body, read loosely: each test checks the fields it uses (api-contracts.test.ts checks the schemas). */
// biome-ignore lint/suspicious/noExplicitAny: a JSON answer whose shape each expectation below states
type Json = any;

async function api(method: string, url: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${web}${url}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

async function deliveredTo(endpoint: string, count: number) {
  await expect
    .poll(
      async () =>
        (await api("GET", `/api/v1/webhooks/deliveries?endpoint=${endpoint}`)).body.filter(
          (d: { status: string }) => d.status === "delivered",
        ).length,
      {
        timeout: 60_000,
        interval: 250,
      },
    )
    .toBe(count);
}

describe("notification settings", () => {
  it.each([
    // A private address: the admin may allow it, and the refusal says how.
    ["http://10.0.0.5/hook", "10.0.0.5 is a private address (10.0.0.0/8)", "OPSBENCH_LOAD_ALLOWED_HOSTS"],
    ["https://192.168.1.1/hook", "192.168.1.1 is a private address (192.168.0.0/16)", "OPSBENCH_LOAD_ALLOWED_HOSTS"],
    // The metadata service: nobody may, and the refusal says so.
    [
      "http://169.254.169.254/latest/meta-data/",
      "169.254.169.254 is in 169.254.0.0/16 (the metadata services, link-local)",
      "which opsbench never reaches",
    ],
  ])("refuses a webhook to %s when it is saved", async (url, why, how) => {
    const res = await api("POST", "/api/v1/webhooks", { url, events: ["run.failed"] });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toContain(why);
    expect(res.body.error.message).toContain(how);
    expect(res.body.error.issues).toEqual([{ path: "url", message: expect.stringContaining(why) }]);
    expect((await api("GET", "/api/v1/webhooks")).body.some((w: { url: string }) => w.url === url)).toBe(false);
  });

  it("refuses a webhook to this web app's own port, and an SMTP server on a private address", async () => {
    const self = await api("POST", "/api/v1/webhooks", { url: `${web}/api/v1/runs`, events: ["run.failed"] });
    expect(self.status).toBe(422);
    expect(self.body.error.message).toContain("one of opsbench's own services");
    const smtp = await api("PUT", "/api/v1/notifications/smtp", {
      host: "192.168.1.1",
      port: 587,
      from: "opsbench@example.com",
      to: ["oncall@example.com"],
      events: ["run.failed"],
    });
    expect(smtp.status).toBe(422);
    expect(smtp.body.error.message).toContain("SMTP server to 192.168.1.1 port 587 refused: 192.168.1.1 is a private address");
    expect((await api("GET", "/api/v1/notifications/smtp")).body).toBeNull();
  });

  it("answers the secret once; Send test and a tripped gate reach the receiver, signed", async () => {
    const created = await api("POST", "/api/v1/webhooks", { url: hookUrl, events: ["gate.tripped"] });
    expect(created.status).toBe(201);
    const { id, secret } = created.body;
    expect(secret).toMatch(/^whsec_/);
    const listed = (await api("GET", "/api/v1/webhooks")).body.find((w: { id: string }) => w.id === id);
    expect(listed).toMatchObject({ url: hookUrl, events: ["gate.tripped"], format: "json", enabled: true });
    expect(JSON.stringify((await api("GET", "/api/v1/webhooks")).body)).not.toContain(secret);

    const test = await api("POST", `/api/v1/webhooks/${id}/test`);
    expect(test.status).toBe(201);
    await deliveredTo(id, 1);
    expect(JSON.parse(got.at(-1)!.body)).toMatchObject({ event: "test" });
    expect(signatureVerifies(got.at(-1)!, secret)).toBe(true);

    // Two runs of the workspace, written directly (nothing is queued): the CLI reports a gate that failed between them.
    const runOf = async (name: string) =>
      (await stack.db.run.create({ data: { workspaceId: stack.scope.workspaceId, status: "SUCCEEDED", source: "k6-import", name } })).id;
    const baseline = await runOf("gate-baseline");
    const candidate = await runOf("gate-candidate");
    const gate = await api("POST", `/api/v1/runs/${candidate}/gate-tripped`, {
      baselineRunId: baseline,
      rules: [{ rule: "p95 > +10%", message: "p95 rose 23% (+18% to +28%)" }],
    });
    expect(gate.status).toBe(201);
    expect(gate.body.deliveries).toBe(1);
    await deliveredTo(id, 2);
    const tripped = JSON.parse(got.at(-1)!.body);
    expect(tripped).toMatchObject({ event: "gate.tripped", runId: candidate, detail: { baselineRunId: baseline } });
    expect(tripped.text).toContain("p95 > +10%");
    expect(signatureVerifies(got.at(-1)!, secret)).toBe(true);
    const audit = (await api("GET", "/api/v1/audit")).body;
    expect(JSON.stringify(audit)).toContain("webhook.create");
  });

  it("shows the endpoints and the delivery log on the settings page, and sends a test from it", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(`${web}/settings`);
      const panel = page.getByTestId("notifications");
      await panel.waitFor();
      const row = panel.getByTestId("webhook-row").filter({ hasText: hookUrl });
      await expect.poll(() => row.count()).toBe(1);
      const before = got.length;
      await clickUntilVisible(row.getByTestId("webhook-send-test"), row.getByTestId("webhook-test-result"));
      await expect.poll(() => got.length, { timeout: 60_000 }).toBe(before + 1);
      // The log shows it once the page is loaded again.
      await expect
        .poll(
          async () => {
            await page.reload();
            return page.getByTestId("delivery-row").filter({ hasText: "test" }).filter({ hasText: "delivered" }).count();
          },
          { timeout: 60_000, interval: 1000 },
        )
        .toBeGreaterThanOrEqual(2);

      // A refused URL typed into the form: the rule's words, nothing saved.
      await page.getByLabel("Webhook URL").fill("http://192.168.1.1/hook");
      await page.getByRole("button", { name: "Add webhook" }).click();
      await expect
        .poll(() => page.getByTestId("new-webhook-error").textContent(), { timeout: 30_000 })
        .toContain("192.168.1.1 is a private address");

      const shots = path.resolve(import.meta.dirname, "../../../.data/screenshots");
      mkdirSync(shots, { recursive: true });
      await panel.screenshot({ path: path.join(shots, "settings-notifications.png") });
    } finally {
      await page.close();
    }
  });
});
