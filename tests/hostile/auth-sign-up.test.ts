// Strangers, viewers and invitees against sign-up and invitations (issue 20, "Anyone becomes an owner" and "A viewer
// makes a stranger an owner"), on a server with sign-in required that starts with no account:
// - the first visitor cannot make the first account (the instance admin) without the one-time setup link;
// - once an account exists, a stranger's sign-up is refused; when the admin opens sign-up, a self-made account
//   owns no workspace (or is a viewer of the one the admin named);
// - members see no invitation ids through Better Auth's endpoints; an account made with an invited address cannot
//   accept the invitation without its link's secret, and can with it, once;
// - API tokens expire, 90 days out by default, and only owners make ones that never expire; an expired one is refused.
import {
  API_TOKEN_DEFAULT_DAYS,
  createApiToken,
  createDb,
  createInvitationLink,
  type Db,
  defaultWorkspaceId,
  INVITATION_HEADER,
  loadInstanceSettings,
  setOpenSignUp,
  setSignUpWorkspace,
  storedAuthSecret,
} from "@opsbench/db";
import { createAuth } from "@opsbench/db/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileServices } from "../file-services";
import { setupLinkPath, startWebWithoutAccounts } from "../test-identity";
import { account, call } from "./auth-http";

let web = "";
let db: Db;
let defaultId = "";
let ownerCookie = "";
let ownerId = "";

beforeAll(async () => {
  web = await startWebWithoutAccounts();
  db = createDb(fileServices().databaseUrl, { max: 2 });
  defaultId = await defaultWorkspaceId(db);
});
afterAll(async () => {
  await db?.$disconnect();
});

const secretOf = (path: string) => new URL(path, "http://x").searchParams.get("setup") ?? "";
const auth = async () => createAuth(db, { secret: await storedAuthSecret(db) });
const memberships = (userId: string) => db.member.findMany({ where: { userId }, select: { organizationId: true, role: true } });

describe("the first account", () => {
  it("the first visitor of a fresh install cannot become admin without the setup link", async () => {
    const visitor = await call(web, "POST", "/api/auth/sign-up/email", { body: account("first-visitor@hostile.test") });
    expect(visitor.status, visitor.text).toBe(403);
    expect(visitor.text).toContain("setup link");
    const forged = await call(web, "POST", "/api/auth/sign-up/email", {
      body: account("forger@hostile.test"),
      headers: { "x-opsbench-setup": "A".repeat(43) },
    });
    expect(forged.status, forged.text).toBe(403);
    expect(await db.user.count()).toBe(0);
    expect((await loadInstanceSettings(db)).adminUserId).toBeNull();

    const secret = secretOf(await setupLinkPath());
    const page = await (await fetch(`${web}/sign-up?setup=${secret}`)).text();
    expect(page).toContain("Create the first account");
    const admin = await call(web, "POST", "/api/auth/sign-up/email", {
      body: account("admin@hostile.test"),
      headers: { "x-opsbench-setup": secret },
    });
    expect(admin.status, admin.text).toBe(200);
    ownerCookie = admin.cookie;
    ownerId = (await db.user.findUniqueOrThrow({ where: { email: "admin@hostile.test" } })).id;
    expect((await loadInstanceSettings(db)).adminUserId).toBe(ownerId);
    expect(await memberships(ownerId)).toEqual([{ organizationId: defaultId, role: "owner" }]);

    // The link works once.
    const again = await call(web, "POST", "/api/auth/sign-up/email", {
      body: account("second@hostile.test"),
      headers: { "x-opsbench-setup": secret },
    });
    expect(again.status, again.text).toBe(403);
  });

  it("a stranger's POST /api/auth/sign-up/email on a server with an account is refused", async () => {
    for (const email of ["stranger@hostile.test", "stranger@hostile.test", "other-stranger@hostile.test"]) {
      const res = await call(web, "POST", "/api/auth/sign-up/email", { body: account(email) });
      expect(res.status, res.text).toBe(403);
      expect(res.text).toContain("Sign-up is closed");
    }
    expect(await db.user.count({ where: { email: { contains: "stranger" } } })).toBe(0);
    const page = await (await fetch(`${web}/sign-up`)).text();
    expect(page).toContain('data-testid="sign-up-closed"');
  });

  it("a self-signed-up account (the admin opened sign-up) owns no workspace, and sees the page saying so", async () => {
    await setOpenSignUp(db, true);
    try {
      const self = await call(web, "POST", "/api/auth/sign-up/email", { body: account("self@hostile.test") });
      expect(self.status, self.text).toBe(200);
      const user = await db.user.findUniqueOrThrow({ where: { email: "self@hostile.test" } });
      expect(await memberships(user.id)).toEqual([]);
      expect(await db.workspace.count()).toBe(1);
      const api = await call(web, "GET", "/api/v1/runs", { cookie: self.cookie });
      expect(api.status).toBe(403);
      const home = await fetch(`${web}/`, { headers: { cookie: self.cookie }, redirect: "manual" });
      expect(home.headers.get("location") ?? "").toContain("/no-workspace");
      const page = await (await fetch(`${web}/no-workspace`, { headers: { cookie: self.cookie } })).text();
      expect(page).toContain("You belong to no workspace yet");

      // The admin may name a workspace: new accounts join it as viewers, never as owners.
      await setSignUpWorkspace(db, defaultId);
      const named = await call(web, "POST", "/api/auth/sign-up/email", { body: account("named@hostile.test") });
      expect(named.status, named.text).toBe(200);
      const namedUser = await db.user.findUniqueOrThrow({ where: { email: "named@hostile.test" } });
      expect(await memberships(namedUser.id)).toEqual([{ organizationId: defaultId, role: "viewer" }]);
    } finally {
      await setSignUpWorkspace(db, null);
      await setOpenSignUp(db, false);
    }
  });
});

describe("invitations", () => {
  let viewerCookie = "";
  let ownerInvitationId = "";
  let ownerLinkSecret = "";

  it("viewers see no invitation ids", async () => {
    const headers = new Headers({ cookie: ownerCookie });
    const viewerLink = await createInvitationLink(await auth(), db, headers, {
      email: "viewer@hostile.test",
      role: "viewer",
      workspaceId: defaultId,
    });
    const ownerLink = await createInvitationLink(await auth(), db, headers, {
      email: "future-owner@hostile.test",
      role: "owner",
      workspaceId: defaultId,
    });
    ownerInvitationId = ownerLink.id;
    ownerLinkSecret = ownerLink.path.split("/").at(-1) ?? "";
    expect(ownerLinkSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The link's secret is stored only as its hash.
    const stored = await db.invitation.findUniqueOrThrow({ where: { id: ownerLink.id } });
    expect(JSON.stringify(stored)).not.toContain(ownerLinkSecret);

    const viewerSecret = viewerLink.path.split("/").at(-1) ?? "";
    const signedUp = await call(web, "POST", "/api/auth/sign-up/email", {
      body: account("viewer@hostile.test"),
      headers: { [INVITATION_HEADER]: viewerSecret },
    });
    expect(signedUp.status, signedUp.text).toBe(200);
    viewerCookie = signedUp.cookie;
    const accepted = await call(web, "POST", "/api/auth/organization/accept-invitation", {
      cookie: viewerCookie,
      body: { invitationId: viewerLink.id, secret: viewerSecret },
    });
    expect(accepted.status, accepted.text).toBe(200);
    const viewer = await db.user.findUniqueOrThrow({ where: { email: "viewer@hostile.test" } });
    expect(await memberships(viewer.id)).toEqual([{ organizationId: defaultId, role: "viewer" }]);

    const reads = [
      `/api/auth/organization/list-invitations?organizationId=${defaultId}`,
      "/api/auth/organization/list-invitations",
      `/api/auth/organization/get-full-organization?organizationId=${defaultId}`,
      "/api/auth/organization/get-full-organization",
      "/api/auth/organization/list-user-invitations",
      `/api/auth/organization/get-invitation?id=${ownerInvitationId}`,
    ];
    for (const path of reads) {
      const res = await call(web, "GET", path, { cookie: viewerCookie });
      expect(res.text, path).not.toContain(ownerInvitationId);
      expect(res.status, path).toBe(404);
    }
    // Not the owner either: the settings page shows owners the invited addresses, never a working link.
    const asOwner = await call(web, "GET", `/api/auth/organization/list-invitations?organizationId=${defaultId}`, { cookie: ownerCookie });
    expect(asOwner.text).not.toContain(ownerInvitationId);
    // Nor can a member make an invitation without a link over HTTP.
    const made = await call(web, "POST", "/api/auth/organization/invite-member", {
      cookie: ownerCookie,
      body: { email: "x@hostile.test", role: "owner", organizationId: defaultId },
    });
    expect(made.status).toBe(404);
  });

  it("an account signed up with an invited address cannot accept without the link (and can with it, once)", async () => {
    // Sign-up closed: the invited address without the link gets no account.
    const closed = await call(web, "POST", "/api/auth/sign-up/email", { body: account("future-owner@hostile.test") });
    expect(closed.status, closed.text).toBe(403);
    // The admin opens sign-up: a stranger takes the invited address (email sign-up verifies nothing).
    await setOpenSignUp(db, true);
    const stranger = await call(web, "POST", "/api/auth/sign-up/email", { body: account("future-owner@hostile.test") }).finally(() =>
      setOpenSignUp(db, false),
    );
    expect(stranger.status, stranger.text).toBe(200);
    const user = await db.user.findUniqueOrThrow({ where: { email: "future-owner@hostile.test" } });
    for (const body of [
      { invitationId: ownerInvitationId },
      { invitationId: ownerInvitationId, secret: "" },
      { invitationId: ownerInvitationId, secret: "B".repeat(43) },
    ]) {
      const res = await call(web, "POST", "/api/auth/organization/accept-invitation", { cookie: stranger.cookie, body });
      expect(res.status, res.text).toBe(403);
      expect(res.text).toContain("only through its link");
    }
    expect(await memberships(user.id)).toEqual([]);
    expect((await db.invitation.findUniqueOrThrow({ where: { id: ownerInvitationId } })).status).toBe("pending");
    // Another account with the link's secret but not the address cannot either.
    const wrongAccount = await call(web, "POST", "/api/auth/organization/accept-invitation", {
      cookie: viewerCookie,
      body: { invitationId: ownerInvitationId, secret: ownerLinkSecret },
    });
    expect(wrongAccount.status, wrongAccount.text).toBe(403);

    const withLink = await call(web, "POST", "/api/auth/organization/accept-invitation", {
      cookie: stranger.cookie,
      body: { invitationId: ownerInvitationId, secret: ownerLinkSecret },
    });
    expect(withLink.status, withLink.text).toBe(200);
    expect(await memberships(user.id)).toEqual([{ organizationId: defaultId, role: "owner" }]);
    const twice = await call(web, "POST", "/api/auth/organization/accept-invitation", {
      cookie: stranger.cookie,
      body: { invitationId: ownerInvitationId, secret: ownerLinkSecret },
    });
    expect(twice.status).toBe(403);
    // The link's page no longer opens.
    expect((await fetch(`${web}/invite/${ownerLinkSecret}`)).status).toBe(404);
  });
});

describe("API tokens", () => {
  it("a new token has an expiry 90 days out by default, shown in the list; only owners make one that never expires", async () => {
    const day = 86_400_000;
    const made = await call(web, "POST", "/api/auth/api-key/create", {
      cookie: ownerCookie,
      body: { name: "hostile", metadata: { workspaceId: defaultId } },
    });
    expect(made.status, made.text).toBe(200);
    const expiresAt = new Date((made.json as { expiresAt: string }).expiresAt).getTime();
    expect(Math.abs(expiresAt - (Date.now() + API_TOKEN_DEFAULT_DAYS * day))).toBeLessThan(5 * 60_000);
    const listed = await call(web, "GET", "/api/auth/api-key/list", { cookie: ownerCookie });
    expect(listed.text).toContain((made.json as { expiresAt: string }).expiresAt);
    // Longer than 90 days, and taking the expiry away over HTTP, are refused.
    const longer = await call(web, "POST", "/api/auth/api-key/create", {
      cookie: ownerCookie,
      body: { name: "long", metadata: { workspaceId: defaultId }, expiresIn: 91 * 86_400 },
    });
    expect(longer.status).toBe(400);
    const update = await call(web, "POST", "/api/auth/api-key/update", {
      cookie: ownerCookie,
      body: { keyId: (made.json as { id: string }).id, expiresIn: null },
    });
    expect(update.status).toBe(404);

    const a = await auth();
    const viewer = await db.user.findUniqueOrThrow({ where: { email: "viewer@hostile.test" } });
    await expect(createApiToken(a, { userId: viewer.id, workspaceId: defaultId, role: "viewer" }, "forever", null)).rejects.toThrow(
      "only a workspace's owners",
    );
    const forever = await createApiToken(a, { userId: ownerId, workspaceId: defaultId, role: "owner" }, "forever", null);
    expect(forever.expiresAt).toBeNull();
    expect((await db.apikey.findUniqueOrThrow({ where: { id: forever.id } })).expiresAt).toBeNull();
  });

  it("an expired token is refused (401), though it worked before its expiry", async () => {
    const made = await call(web, "POST", "/api/auth/api-key/create", {
      cookie: ownerCookie,
      body: { name: "expiring", metadata: { workspaceId: defaultId } },
    });
    expect(made.status, made.text).toBe(200);
    const { id, key } = made.json as { id: string; key: string };
    const bearer = { authorization: `Bearer ${key}` };
    const before = await call(web, "GET", "/api/v1/targets", { headers: bearer });
    expect(before.status, before.text).toBe(200);
    // Its expiry passes (set in the database, a minute ago).
    await db.apikey.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 60_000) } });
    const after = await call(web, "GET", "/api/v1/targets", { headers: bearer });
    expect(after.status, after.text).toBe(401);
  });
});
