// Accounts, sessions, workspaces (Better Auth organizations) and API tokens, all Better Auth's own code on
// this Postgres through Prisma. opsbench adds only its rules: the first account is the instance admin and
// owns the "default" workspace; the admin may close open sign-up (then only invited emails may sign up);
// anyone else who signs up openly gets a workspace of their own.
import { apiKey } from "@better-auth/api-key";
import { prismaAdapter } from "@better-auth/prisma-adapter";
import { betterAuth } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { genericOAuth, organization } from "better-auth/plugins";
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
  /** Sign-in through a team's OpenID Connect identity provider, besides email and password. */
  oidc?: OidcOptions;
}

export interface OidcOptions {
  /** The provider's issuer URL; its discovery document is `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** What the sign-in button calls it ("Sign in with <name>"). */
  name: string;
}

/** The Better Auth provider id of the OIDC sign-in: its callback is /api/auth/callback/oidc. */
export const OIDC_PROVIDER_ID = "oidc";

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

/** Sign-up (by any method) is closed to everyone but the first account and invited emails when the admin closed it. */
async function refuseClosedSignUp(db: Db, email: string): Promise<void> {
  const settings = await loadInstanceSettings(db);
  if (settings.adminUserId && !settings.openSignUp && !(await hasPendingInvitation(db, email)))
    throw new APIError("FORBIDDEN", { message: "Sign-up is closed on this server: ask a workspace owner for an invitation" });
}

/**
 * An account made through the identity provider joins the workspaces that invited its email: the provider vouched
 * for the email (email_verified), as the invitation link does for an email sign-up, which accepts it at once.
 */
async function acceptInvitationsOfVerifiedEmail(db: Db, userId: string): Promise<void> {
  const user = await db.user.findUnique({ where: { id: userId }, select: { email: true, emailVerified: true } });
  if (!user?.emailVerified) return;
  const invitations = await db.invitation.findMany({
    where: { email: user.email.toLowerCase(), status: "pending", expiresAt: { gt: new Date() } },
  });
  for (const i of invitations) {
    await db.$transaction([
      db.member.create({ data: { organizationId: i.organizationId, userId, role: i.role ?? "viewer" } }),
      db.invitation.update({ where: { id: i.id }, data: { status: "accepted" } }),
    ]);
  }
}

function oidcPlugin(o: OidcOptions | undefined) {
  return genericOAuth({
    config: !o
      ? []
      : [
          {
            providerId: OIDC_PROVIDER_ID,
            name: o.name,
            clientId: o.clientId,
            clientSecret: o.clientSecret,
            discoveryUrl: `${o.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
            scopes: ["openid", "email", "profile"],
            // Identity comes from the ID token's claims: never accept one whose signature could not be checked.
            requireIdTokenVerification: true,
          },
        ],
  });
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
        await refuseClosedSignUp(db, typeof ctx.body?.email === "string" ? ctx.body.email : "");
      }),
    },
    databaseHooks: {
      user: {
        create: {
          // The email sign-up was checked before it began; this catches the identity provider's new accounts.
          before: async (user) => {
            await refuseClosedSignUp(db, user.email);
          },
          after: async (user) => placeNewUser(db, user),
        },
      },
      account: {
        create: {
          after: async (account) => {
            if (account.providerId === OIDC_PROVIDER_ID) await acceptInvitationsOfVerifiedEmail(db, account.userId);
          },
        },
      },
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
      // Always there (with no provider when unset), so the plugins' types stay one tuple.
      oidcPlugin(opts.oidc),
    ],
  });
}
export type Auth = ReturnType<typeof createAuth>;
