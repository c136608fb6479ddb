// Issue 20: the settings page's server actions check the signed-in member themselves, as the API routes do. Each is
// called here as Next.js would call it, with the member it resolves (requireMember) given by the test and the file's
// own database behind it: a viewer and an editor (and, for the instance admin's actions, an owner who is not the
// admin) are refused and nothing changes; the allowed caller's same call does change it (so the refusal is the check's).
import type { WorkspaceRole } from "@opsbench/core";
import { type Db, createDb, defaultWorkspaceId, loadInstanceCeilings, loadInstanceSettings, workspaceScope } from "@opsbench/db";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { testDatabaseUrl } from "../../../tests/helpers";

const state = vi.hoisted(() => ({
  db: null as unknown,
  member: null as unknown,
  /** Better Auth, reached only past the check (inviteAction): a call here means the check let the caller through. */
  getAuth: async (): Promise<never> => {
    throw new Error("no test has set getAuth");
  },
}));

vi.mock("next/cache", () => ({ revalidatePath: () => {} }));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("@/lib/server/workspace", () => ({ requireMember: async () => state.member }));
vi.mock("@/lib/server/singletons", () => ({
  getDb: () => state.db,
  getAuth: () => state.getAuth(),
  getNotificationQueue: () => {
    throw new Error("the check let the caller through to the notification queue");
  },
}));
vi.mock("@/lib/server/credential-save", () => ({ saveCheckedCredential: async () => ({}) }));

const { inviteAction, setOpenSignUpAction, setSignUpWorkspaceAction } = await import("@/features/settings/actions");
const { setCeilingsAction } = await import("@/features/settings/ceiling-actions");
const { setEditorsMayDeployAction } = await import("@/features/settings/credential-actions");
const { createWebhookAction, deleteWebhookAction, saveSmtpAction, testWebhookAction } = await import(
  "@/features/settings/notification-actions"
);

let db: Db;
let workspaceId: string;

/** The member requireMember answers: `role` in the default workspace, the instance admin or not. */
function signedIn(role: WorkspaceRole, instanceAdmin = false) {
  state.member = {
    userId: `user-${role}`,
    email: `${role}@settings.test`,
    name: role,
    workspaceId,
    role,
    via: "session",
    instanceAdmin,
    scope: workspaceScope(db, workspaceId),
  };
}

const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), { max: 2 });
  state.db = db;
  workspaceId = await defaultWorkspaceId(db);
});
afterAll(async () => {
  await db?.$disconnect();
});

describe("the settings page's actions refuse members without the role, and change nothing", () => {
  it("inviteAction: viewers and editors are refused before an invitation is made", async () => {
    const auth = vi.fn(async () => {
      throw new Error("the check let the caller through to Better Auth");
    });
    state.getAuth = auth;
    const before = await db.invitation.count();
    for (const role of ["viewer", "editor"] as const) {
      signedIn(role);
      const answer = await inviteAction({}, form({ email: `new-${role}@settings.test`, role: "owner" }));
      expect(answer, role).toEqual({ error: "only owners invite" });
    }
    expect(auth).not.toHaveBeenCalled();
    expect(await db.invitation.count()).toBe(before);
  });

  it("setOpenSignUpAction and setSignUpWorkspaceAction: only the instance admin; a non-admin owner, an editor and a viewer are refused", async () => {
    const before = await loadInstanceSettings(db);
    expect(before.openSignUp).toBe(false);
    for (const role of ["owner", "editor", "viewer"] as const) {
      signedIn(role);
      await expect(setOpenSignUpAction(form({ open: "true" })), role).rejects.toThrow("only the instance admin changes sign-up");
      await expect(setSignUpWorkspaceAction(form({ workspaceId })), role).rejects.toThrow("only the instance admin changes sign-up");
    }
    const after = await loadInstanceSettings(db);
    expect(after.openSignUp).toBe(false);
    expect(after.signUpWorkspaceId).toBe(before.signUpWorkspaceId);

    // The admin's same calls change both (then sign-up is closed again).
    signedIn("owner", true);
    await setOpenSignUpAction(form({ open: "true" }));
    await setSignUpWorkspaceAction(form({ workspaceId }));
    const changed = await loadInstanceSettings(db);
    expect(changed.openSignUp).toBe(true);
    expect(changed.signUpWorkspaceId).toBe(workspaceId);
    await setOpenSignUpAction(form({ open: "false" }));
    await setSignUpWorkspaceAction(form({ workspaceId: "" }));
  });

  it("setCeilingsAction: only the instance admin; a non-admin owner, an editor and a viewer are refused", async () => {
    const before = await loadInstanceCeilings(db);
    const raised = Object.fromEntries(Object.entries(before).map(([k, v]) => [k, String(Number(v) + 1)]));
    for (const role of ["owner", "editor", "viewer"] as const) {
      signedIn(role);
      expect(await setCeilingsAction({}, form(raised)), role).toEqual({ error: "only the instance admin sets the ceilings" });
    }
    expect(await loadInstanceCeilings(db)).toEqual(before);

    signedIn("owner", true);
    expect(await setCeilingsAction({}, form(raised))).toEqual({ value: "saved" });
    expect(await loadInstanceCeilings(db)).not.toEqual(before);
  });

  it("setEditorsMayDeployAction: owners only; an editor and a viewer cannot open a credential to editors", async () => {
    const scope = workspaceScope(db, workspaceId);
    const credential = await scope.credentials.save({ name: "owners-kube", kind: "kubernetes", sealed: "sealed", checkedAt: new Date() });
    expect(credential.editorsMayDeploy).toBe(false);
    for (const role of ["editor", "viewer"] as const) {
      signedIn(role);
      await expect(setEditorsMayDeployAction(form({ id: credential.id, editorsMayDeploy: "true" })), role).rejects.toThrow(
        "only owners manage credentials",
      );
    }
    const stored = () => db.credential.findUniqueOrThrow({ where: { id: credential.id }, select: { editorsMayDeploy: true } });
    expect((await stored()).editorsMayDeploy).toBe(false);

    signedIn("owner");
    await setEditorsMayDeployAction(form({ id: credential.id, editorsMayDeploy: "true" }));
    expect((await stored()).editorsMayDeploy).toBe(true);
  });

  it("the notification actions: owners only; an owner's webhook to a private address is refused by the egress rule", async () => {
    const scope = workspaceScope(db, workspaceId);
    const hook = await db.webhookEndpoint.create({
      data: { workspaceId, url: "https://hooks.example.com/a", events: ["run.failed"], secret: "v1.x.x.x", createdBy: "test" },
    });
    const webhookForm = form({ url: "https://hooks.example.com/b", format: "json", "event:run.failed": "on" });
    const smtpForm = form({ host: "smtp.example.com", port: "587", from: "a@example.com", to: "b@example.com", "event:run.failed": "on" });
    for (const role of ["editor", "viewer"] as const) {
      signedIn(role);
      const refused = { error: "only owners manage notifications" };
      expect(await createWebhookAction({}, webhookForm), role).toEqual(refused);
      expect(await saveSmtpAction({}, smtpForm), role).toEqual(refused);
      expect(await testWebhookAction({}, form({ id: hook.id })), role).toEqual(refused);
      await expect(deleteWebhookAction(form({ id: hook.id })), role).rejects.toThrow("only owners manage notifications");
    }
    expect((await scope.notifications.listWebhooks()).map((w) => w.id)).toEqual([hook.id]);
    expect(await scope.notifications.smtp()).toBeNull();

    signedIn("owner");
    const privateHook = await createWebhookAction({}, form({ url: "http://10.0.0.5/hook", format: "json", "event:run.failed": "on" }));
    expect(privateHook.error).toContain("10.0.0.5 is a private address (10.0.0.0/8)");
    const privateSmtp = await saveSmtpAction(
      {},
      form({ host: "192.168.1.1", port: "587", from: "a@example.com", to: "b@example.com", "event:run.failed": "on" }),
    );
    expect(privateSmtp.error).toContain("192.168.1.1 is a private address");
    expect((await createWebhookAction({}, form({ url: "https://hooks.example.com/c" }))).error).toContain("name at least one event");
    expect((await scope.notifications.listWebhooks()).map((w) => w.id)).toEqual([hook.id]);
    await deleteWebhookAction(form({ id: hook.id }));
    expect(await scope.notifications.listWebhooks()).toEqual([]);
  });
});
