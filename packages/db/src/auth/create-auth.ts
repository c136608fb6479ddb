// Accounts, sessions, workspaces (Better Auth organizations) and API tokens, all Better Auth's own code on
// this Postgres through Prisma. opsbench adds only its rules (docs/security.md, "Accounts"):
// - the first account is made with the one-time setup link (its secret in the x-opsbench-setup header) and is the
//   instance admin and owner of "default"; nobody else can sign up before it exists;
// - after that sign-up is closed unless the admin opens it: an invitation link's secret (x-opsbench-invitation)
//   lets its address sign up; open sign-up lands new accounts in no workspace (or as viewers of the one the admin
//   named), never as owners of their own;
// - an invitation is accepted only with its link's secret, and Better Auth's endpoints that hand out invitation
//   ids (list, get, the full organization) are not served.
import { apiKey } from "@better-auth/api-key";
import { prismaAdapter } from "@better-auth/prisma-adapter";
import { betterAuth } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { genericOAuth, organization } from "better-auth/plugins";
import type { Db } from "../client";
import { defaultWorkspaceId } from "../scope/workspace-scope";
import {
  claimInstanceAdmin,
  hashLinkSecret,
  loadInstanceSettings,
  SETUP_HEADER,
  setupTokenValid,
  useSetupToken,
} from "./instance-settings";
import { workspaceAccessControl, workspaceRoles } from "./roles-access";
import { invitationSecretMatches } from "./invitation-secrets";
import {
  API_TOKEN_DEFAULT_DAYS,
  API_TOKEN_PREFIX,
  type AuthMail,
  type AuthOptions,
  CLIENT_ADDRESS_HEADER,
  DISABLED_AUTH_PATHS,
  INVITATION_HEADER,
  OIDC_PROVIDER_ID,
  type OidcOptions,
  PASSWORD_RESET_SECONDS,
} from "./auth-options";

const FIRST_ACCOUNT_MESSAGE =
  "This server has no account yet: the first account (the instance admin) is made with the one-time setup link " +
  "the web app prints when it starts, or one from `opsbench admin setup-link` on the server";
const BAD_SETUP_MESSAGE =
  "This setup link is not valid (used, replaced by a newer one, or mistyped): make a new one with `opsbench admin setup-link` on the server";
const CLOSED_MESSAGE = "Sign-up is closed on this server: ask a workspace owner for an invitation link";

async function hasPendingInvitation(db: Db, email: string): Promise<boolean> {
  const found = await db.invitation.findFirst({
    where: { email: email.toLowerCase(), status: "pending", expiresAt: { gt: new Date() } },
    select: { id: true },
  });
  return found !== null;
}

/** Whether `secret` is the link secret of a pending, unexpired invitation of `email`. */
async function invitedByLink(db: Db, email: string, secret: string | null | undefined): Promise<boolean> {
  if (!secret) return false;
  const found = await db.invitation.count({
    where: { email: email.toLowerCase(), secretHash: hashLinkSecret(secret), status: "pending", expiresAt: { gt: new Date() } },
  });
  return found > 0;
}

const headerOf = (headers: Headers | undefined | null, name: string) => headers?.get(name) ?? null;

/**
 * Whether a new account for `email` may be made now; throws the reason when not. `consume` uses the setup link up
 * (only right before the account is written, so a refused password does not waste it). `verifiedEmail`: the
 * identity provider vouched for the address (email sign-up verifies nothing).
 */
async function checkSignUp(db: Db, email: string, headers: Headers | null | undefined, verifiedEmail: boolean, consume: boolean) {
  const settings = await loadInstanceSettings(db);
  if (!settings.adminUserId) {
    const setup = headerOf(headers, SETUP_HEADER);
    if (!setup) throw new APIError("FORBIDDEN", { message: FIRST_ACCOUNT_MESSAGE });
    const ok = consume ? await useSetupToken(db, setup, email) : await setupTokenValid(db, setup);
    if (!ok) throw new APIError("FORBIDDEN", { message: BAD_SETUP_MESSAGE });
    return;
  }
  if (settings.openSignUp) return;
  if (await invitedByLink(db, email, headerOf(headers, INVITATION_HEADER))) return;
  // The team's identity provider vouched for an invited address (see acceptInvitationsOfVerifiedEmail).
  if (verifiedEmail && (await hasPendingInvitation(db, email))) return;
  throw new APIError("FORBIDDEN", { message: CLOSED_MESSAGE });
}

/**
 * A new account's place: the setup link's account is the admin and owns "default"; one that signed up openly joins
 * the workspace the admin named (as a viewer) or none; an invited one joins when it accepts its link.
 */
async function placeNewUser(db: Db, user: { id: string; email: string }, headers: Headers | null | undefined): Promise<void> {
  if (await claimInstanceAdmin(db, user.id, user.email)) {
    await db.member.create({ data: { organizationId: await defaultWorkspaceId(db), userId: user.id, role: "owner" } });
    return;
  }
  if (headerOf(headers, INVITATION_HEADER)) return;
  const settings = await loadInstanceSettings(db);
  if (!settings.openSignUp || !settings.signUpWorkspaceId) return;
  const ws = await db.workspace.findUnique({ where: { id: settings.signUpWorkspaceId }, select: { id: true } });
  if (ws) await db.member.create({ data: { organizationId: ws.id, userId: user.id, role: "viewer" } });
}

/**
 * An account made through the identity provider joins the workspaces that invited its email without the link: the
 * team's provider vouched for the address (email_verified, in an ID token whose signature was checked), which is
 * what the link's secret stands for. Email sign-up verifies nothing, so there the link is needed.
 */
async function acceptInvitationsOfVerifiedEmail(db: Db, userId: string): Promise<void> {
  const user = await db.user.findUnique({ where: { id: userId }, select: { email: true, emailVerified: true } });
  if (!user?.emailVerified) return;
  const invitations = await db.invitation.findMany({
    where: { email: user.email.toLowerCase(), status: "pending", expiresAt: { gt: new Date() } },
  });
  for (const i of invitations) {
    const { count } = await db.invitation.updateMany({ where: { id: i.id, status: "pending" }, data: { status: "accepted" } });
    if (count === 1) await db.member.create({ data: { organizationId: i.organizationId, userId, role: i.role ?? "viewer" } });
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

/**
 * Better Auth's password reset through the instance's mail: the link (Better Auth's /reset-password/<token>, which
 * sends the browser on to the app's /reset-password page with the token) is good for an hour and once; signing in
 * with the new password ends the account's other sessions.
 */
function mailedPasswordReset(mail: AuthMail, requireEmailVerification: boolean) {
  return {
    requireEmailVerification,
    resetPasswordTokenExpiresIn: PASSWORD_RESET_SECONDS,
    revokeSessionsOnPasswordReset: true,
    sendResetPassword: async ({ user, url }: { user: { email: string }; url: string }) => {
      await mail.send({
        to: user.email,
        subject: "[opsbench] Reset your password",
        text:
          `Someone (hopefully you) asked to reset the password of the opsbench account ${user.email}.\n\n` +
          `Choose a new one here (the link works once, for an hour):\n${url}\n\n` +
          "If it was not you, ignore this mail: the password stays as it is.\n",
      });
    },
  };
}

function mailedVerification(mail: AuthMail) {
  return {
    sendOnSignUp: true,
    // Accounts made before verification was required have unverified addresses: their sign-in is refused and mails
    // them a link, rather than locking them out.
    sendOnSignIn: true,
    autoSignInAfterVerification: true,
    sendVerificationEmail: async ({ user, url }: { user: { email: string }; url: string }) => {
      await mail.send({
        to: user.email,
        subject: "[opsbench] Verify your e-mail address",
        text: `Open this link to verify ${user.email} for your opsbench account:\n${url}\n`,
      });
    },
  };
}

export function createAuth(db: Db, opts: AuthOptions) {
  return betterAuth({
    appName: "opsbench",
    secret: opts.secret,
    baseURL: opts.baseURL,
    trustedOrigins: opts.trustedOrigins,
    database: prismaAdapter(db, { provider: "postgresql" }),
    telemetry: { enabled: false },
    emailAndPassword: {
      enabled: true,
      minPasswordLength: 10,
      ...(opts.mail ? mailedPasswordReset(opts.mail, opts.requireEmailVerification ?? false) : {}),
    },
    ...(opts.mail && opts.requireEmailVerification ? { emailVerification: mailedVerification(opts.mail) } : {}),
    disabledPaths: DISABLED_AUTH_PATHS,
    // Sign-in and sign-up are throttled by the web app (per account and per client address, in Redis, in every
    // mode: apps/web/lib/server/auth-throttle.ts). Better Auth's own limiter keeps its counts in memory, runs in
    // production only and keys them by a client-set X-Forwarded-For, so it stays off.
    rateLimit: { enabled: false },
    advanced: { database: { generateId: "uuid" }, ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] } },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path === "/sign-up/email") {
          const email = typeof ctx.body?.email === "string" ? ctx.body.email : "";
          await checkSignUp(db, email, ctx.headers, false, false);
        }
        if (ctx.path === "/organization/accept-invitation") {
          const invitationId = typeof ctx.body?.invitationId === "string" ? ctx.body.invitationId : "";
          if (!(await invitationSecretMatches(db, invitationId, ctx.body?.secret)))
            throw new APIError("FORBIDDEN", {
              message: "An invitation is accepted only through its link: the link's secret is missing, wrong, or already used",
            });
        }
      }),
    },
    databaseHooks: {
      user: {
        create: {
          // Every way in (email sign-up, the identity provider, `opsbench admin create`) passes here.
          before: async (user, ctx) => {
            await checkSignUp(db, user.email, ctx?.headers, user.emailVerified === true, true);
          },
          after: async (user, ctx) => placeNewUser(db, user, ctx?.headers),
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
        // Tokens expire: 90 days unless the maker chose 1 to 90 (the settings page; only owners may choose never).
        keyExpiration: { defaultExpiresIn: API_TOKEN_DEFAULT_DAYS * 86_400, minExpiresIn: 1, maxExpiresIn: API_TOKEN_DEFAULT_DAYS },
      }),
      // Always there (with no provider when unset), so the plugins' types stay one tuple.
      oidcPlugin(opts.oidc),
    ],
  });
}
export type Auth = ReturnType<typeof createAuth>;
