// Sign-in through a team's OpenID Connect provider: a real oidc-provider on loopback, the web app configured
// from OPSBENCH_OIDC_* (sign-in required, sign-up closed by the admin). An invited email signs in through the
// provider's pages in the browser and ends up a member, with the invited role and a session; an email nobody
// invited gets no account. The same web app has the instance's mail (OPSBENCH_SMTP_URL, an SMTP stand-in on
// loopback): a forgotten password is reset through the link mailed to the account, and the link works once.
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db, defaultWorkspaceId, setOpenSignUp } from "@opsbench/db";
import { freePort, fileServices, useWeb } from "../../../tests/file-services";
import { launchBrowser } from "../../../tests/helpers";
import { SSO_EMAIL_DOMAIN, startIdentityProvider, type TestIdentityProvider } from "../../../tests/oidc-identity-provider";
import { createTestIdentity, TEST_OWNER } from "../../../tests/test-identity";

let web = "";
let idp: TestIdentityProvider;
let db: Db;
let browser: Browser;
const mails: { to: string[]; data: string }[] = [];
// The instance's mail server: plain text on loopback (no certificate), no login.
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  onData(stream, session, cb) {
    let data = "";
    stream.setEncoding("utf8");
    stream.on("data", (c: string) => (data += c));
    stream.on("end", () => {
      mails.push({ to: session.envelope.rcptTo.map((r) => r.address), data });
      cb();
    });
  },
});

beforeAll(async () => {
  await new Promise<void>((r) => smtp.server.listen(0, "127.0.0.1", r));
  const smtpPort = (smtp.server.address() as AddressInfo).port;
  const port = await freePort();
  web = `http://127.0.0.1:${port}`;
  idp = await startIdentityProvider(`${web}/api/auth/callback/oidc`);
  await useWeb({
    auth: "required",
    port,
    env: {
      OPSBENCH_PUBLIC_URL: web,
      OPSBENCH_OIDC_ISSUER: idp.issuer,
      OPSBENCH_OIDC_CLIENT_ID: idp.clientId,
      OPSBENCH_OIDC_CLIENT_SECRET: idp.clientSecret,
      OPSBENCH_OIDC_NAME: "Test IdP",
      OPSBENCH_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      OPSBENCH_SMTP_FROM: "bench@opsbench.test",
    },
  });
  await createTestIdentity(fileServices().databaseUrl);
  db = createDb(fileServices().databaseUrl, { max: 2 });
  // Only invited emails may get an account from here on.
  await setOpenSignUp(db, false);
  const owner = await db.user.findFirstOrThrow({ where: { email: TEST_OWNER.email } });
  await db.invitation.create({
    data: {
      organizationId: await defaultWorkspaceId(db),
      email: `ines@${SSO_EMAIL_DOMAIN}`,
      role: "editor",
      inviterId: owner.id,
      expiresAt: new Date(Date.now() + 3600_000),
    },
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await db?.$disconnect();
  await idp?.close();
  await new Promise<void>((r) => smtp.close(() => r()));
});

/** From opsbench's sign-in page through the provider's login and consent pages, as `login`. */
async function signInThroughProvider(page: Page, login: string) {
  await page.goto(`${web}/sign-in`);
  await page.getByTestId("sso-sign-in").click();
  await page.waitForURL((url) => url.href.startsWith(idp.issuer), { waitUntil: "commit" });
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.screenshot({ path: "/tmp/oidc-provider-login.png" });
  await page.getByRole("button", { name: "Sign-in" }).click();
  // The provider asks once whether opsbench may have the claims.
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL((url) => url.href.startsWith(web), { waitUntil: "commit" });
  await page.waitForLoadState("domcontentloaded");
}

describe("OIDC sign-in", () => {
  it("shows the provider on the sign-in page", async () => {
    const page = await browser.newPage();
    await page.goto(`${web}/sign-in`);
    expect(await page.getByTestId("sso-sign-in").textContent()).toBe("Sign in with Test IdP");
    await page.screenshot({ path: "/tmp/oidc-sign-in-page.png" });
    await page.close();
  });

  it("signs an invited email in through the provider: a member with the invited role and a session", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signInThroughProvider(page, "ines");
    expect(new URL(page.url()).pathname).toBe("/");
    expect((await ctx.cookies()).map((c) => c.name)).toContain("better-auth.session_token");
    await page.goto(`${web}/settings`);
    expect(await page.getByTestId("signed-in-as").textContent()).toBe(`ines@${SSO_EMAIL_DOMAIN} · editor`);
    await page.screenshot({ path: "/tmp/oidc-signed-in-settings.png", fullPage: true });

    const user = await db.user.findUniqueOrThrow({ where: { email: `ines@${SSO_EMAIL_DOMAIN}` }, include: { accounts: true } });
    expect(user.accounts.map((a) => a.providerId)).toEqual(["oidc"]);
    const member = await db.member.findFirstOrThrow({ where: { userId: user.id } });
    expect(member.role).toBe("editor");
    expect((await db.invitation.findFirstOrThrow({ where: { email: `ines@${SSO_EMAIL_DOMAIN}` } })).status).toBe("accepted");
    // The session works on the API too: an editor may list runs.
    expect(await page.evaluate(async () => (await fetch("/api/v1/runs")).status)).toBe(200);
    await ctx.close();
  });

  it("gives an email nobody invited no account while sign-up is closed", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signInThroughProvider(page, "mallory");
    expect(new URL(page.url()).pathname).not.toBe("/");
    expect((await ctx.cookies()).map((c) => c.name)).not.toContain("better-auth.session_token");
    expect(await db.user.count({ where: { email: `mallory@${SSO_EMAIL_DOMAIN}` } })).toBe(0);
    await ctx.close();
  });
});

/** A mail's text as sent: quoted-printable soft breaks joined and its escapes decoded (nodemailer wraps long lines so). */
const mailText = (raw: string) =>
  raw.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

const signIn = (password: string) =>
  fetch(`${web}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: web },
    body: JSON.stringify({ email: TEST_OWNER.email, password }),
  });

describe("password reset by mail", () => {
  it("mails a reset link from 'Forgot password?'; the link sets a new password once, and a second use is refused", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${web}/sign-in`);
      await page.getByTestId("forgot-password").click();
      await page.waitForURL(`${web}/forgot-password`);
      await page.locator('input[name="email"]').fill(TEST_OWNER.email);
      await page.getByRole("button", { name: "Mail me a reset link" }).click();
      await page.getByTestId("reset-requested").waitFor();
      await expect.poll(() => mails.filter((m) => m.to.includes(TEST_OWNER.email)).length, { timeout: 30_000 }).toBe(1);
      const mail = mailText(mails.find((m) => m.to.includes(TEST_OWNER.email))!.data);
      expect(mail).toContain("Subject: [opsbench] Reset your password");
      expect(mail).toMatch(/^From: bench@opsbench\.test/m);
      const link = /(http:\/\/\S+\/api\/auth\/reset-password\/\S+)/.exec(mail)?.[1];
      expect(link, mail).toBeDefined();
      expect(link!.startsWith(`${web}/`)).toBe(true);

      await page.goto(link!);
      await page.waitForURL((url) => url.pathname === "/reset-password" && url.searchParams.has("token"));
      const newPassword = "a-new-password-after-reset";
      await page.locator('input[name="password"]').fill(newPassword);
      await page.locator('input[name="again"]').fill(newPassword);
      await page.screenshot({ path: "/tmp/reset-password-page.png" });
      await page.getByRole("button", { name: "Set the new password" }).click();
      await page.getByTestId("reset-done").waitFor();
      expect((await signIn(newPassword)).status).toBe(200);
      expect((await signIn(TEST_OWNER.password)).status).toBe(401);

      // The link again: its token was used up. The page says so, and Better Auth refuses the token itself.
      await page.goto(link!);
      await page.getByTestId("reset-link-invalid").waitFor();
      const token = new URL(link!).pathname.split("/").pop()!;
      const again = await fetch(`${web}/api/auth/reset-password`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: web },
        body: JSON.stringify({ token, newPassword: "yet-another-password" }),
      });
      expect(again.status).toBe(400);
      expect((await signIn("yet-another-password")).status).toBe(401);
      // An address with no account gets the same answer on the page, and no mail.
      await page.goto(`${web}/forgot-password`);
      await page.locator('input[name="email"]').fill("nobody@opsbench.test");
      await page.getByRole("button", { name: "Mail me a reset link" }).click();
      await page.getByTestId("reset-requested").waitFor();
      expect(mails.some((m) => m.to.includes("nobody@opsbench.test"))).toBe(false);

      // Signed in with the new password, the owner's settings page has the results export panel.
      await page.goto(`${web}/sign-in`);
      await page.locator('input[name="email"]').fill(TEST_OWNER.email);
      await page.locator('input[name="password"]').fill(newPassword);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
      await page.goto(`${web}/settings#exporters`);
      await page.getByTestId("new-exporter-form").waitFor();
      await page.getByTestId("exporters").screenshot({ path: "/tmp/exporters-panel.png" });
    } finally {
      await page.close();
    }
  });
});
