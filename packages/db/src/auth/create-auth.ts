// Accounts, sessions, workspaces (Better Auth organizations) and API tokens, all Better Auth's own code on
// this Postgres through Prisma. opsbench adds only its rules: the first account is the instance admin and
// owns the "default" workspace; the admin may close open sign-up (then only invited emails may sign up);
// anyone else who signs up openly gets a workspace of their own.
import { apiKey } from "@better-auth/api-key";
import { prismaAdapter } from "@better-auth/prisma-adapter";
import { betterAuth } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { organization } from "better-auth/plugins";
import type { Db } from "../client";
import { defaultWorkspaceId } from "../workspace-scope";
import { claimInstanceAdmin, loadInstanceSettings } from "./instance-settings";
import { workspaceAccessControl, workspaceRoles } from "./roles-access";

export interface AuthOptions {
  secret: string;
  /** The address users reach the app at; Better Auth infers it from each request when absent. */
  baseURL?: string;
  /** Origins besides baseURL that may send sign-in and other cookie requests. */
  trustedOrigins?: string[];
}

/** API tokens start with this, so a leaked one is easy to recognise (and to search for). */
export const API_TOKEN_PREFIX = "obk_";

async function hasPendingInvitation(db: Db, email: string): Promise<boolean> {
  const found = await db.invitation.findFirst({
    where: { email: email.toLowerCase(), status: "pending", expiresAt: { gt: new Date() } },
    select: { id: true },
  });
  return found !== null;
}

/** A new account's first workspace: "default" for the first one, none for the invited, else one of its own. */
async function placeNewUser(db: Db, user: { id: string; email: string; name: string }): Promise<void> {
  if (await claimInstanceAdmin(db, user.id)) {
    await db.member.create({ data: { organizationId: await defaultWorkspaceId(db), userId: user.id, role: "owner" } });
    return;
  }
  if (await hasPendingInvitation(db, user.email)) return;
  const ws = await db.workspace.create({
    data: { slug: `ws-${user.id.slice(0, 8)}`, name: `${user.name || user.email}'s workspace` },
  });
  await db.member.create({ data: { organizationId: ws.id, userId: user.id, role: "owner" } });
}

/** The workspace a new session starts in: the user's oldest membership. */
async function firstWorkspaceOf(db: Db, userId: string): Promise<string | null> {
  const m = await db.member.findFirst({ where: { userId }, orderBy: { createdAt: "asc" }, select: { organizationId: true } });
  return m?.organizationId ?? null;
}

export function createAuth(db: Db, opts: AuthOptions) {
  return betterAuth({
    appName: "opsbench",
    secret: opts.secret,
    baseURL: opts.baseURL,
    trustedOrigins: opts.trustedOrigins,
    database: prismaAdapter(db, { provider: "postgresql" }),
    telemetry: { enabled: false },
    advanced: { database: { generateId: "uuid" } },
    emailAndPassword: { enabled: true, minPasswordLength: 10 },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== "/sign-up/email") return;
        const settings = await loadInstanceSettings(db);
        const email = typeof ctx.body?.email === "string" ? ctx.body.email : "";
        if (settings.adminUserId && !settings.openSignUp && !(await hasPendingInvitation(db, email)))
          throw new APIError("FORBIDDEN", { message: "Sign-up is closed on this server: ask a workspace owner for an invitation" });
      }),
    },
    databaseHooks: {
      user: { create: { after: async (user) => placeNewUser(db, user) } },
      session: {
        create: {
          before: async (session) => ({ data: { ...session, activeOrganizationId: await firstWorkspaceOf(db, session.userId) } }),
        },
      },
    },
    plugins: [
      organization({
        ac: workspaceAccessControl,
        roles: workspaceRoles,
        creatorRole: "owner",
        allowUserToCreateOrganization: false,
        // Invitations are links an owner hands on; no mail is sent.
        sendInvitationEmail: async () => {},
        schema: { organization: { modelName: "workspace" } },
      }),
      apiKey({
        defaultPrefix: API_TOKEN_PREFIX,
        enableMetadata: true,
        // Request limits are the API's business, not the token's.
        rateLimit: { enabled: false },
      }),
    ],
  });
}
export type Auth = ReturnType<typeof createAuth>;
