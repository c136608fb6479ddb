// What the accounts' rules are called and configured with, apart from Better Auth itself (create-auth.ts): the
// worker, the CLI and every other importer of @opsbench/db read these without loading Better Auth, which costs a
// Node process about 0.4 s of CPU to load. Only the web app and `opsbench admin create` build the instance
// (createAuth, exported as @opsbench/db/auth).
export interface AuthOptions {
  secret: string;
  /** The address users reach the app at; Better Auth infers it from each request when absent. */
  baseURL?: string;
  /** Origins besides baseURL that may send sign-in and other cookie requests. */
  trustedOrigins?: string[];
  /** Sign-in through a team's OpenID Connect identity provider, besides email and password. */
  oidc?: OidcOptions;
  /**
   * The instance's mail (OPSBENCH_SMTP_URL): with it, a forgotten password is reset through a link mailed to the
   * account's address, and (requireEmailVerification) a new account verifies its address before it signs in.
   */
  mail?: AuthMail;
  requireEmailVerification?: boolean;
}

export interface AuthMail {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
}

/** A password-reset link is good for this long, and once. */
export const PASSWORD_RESET_SECONDS = 3600;

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

/** Tokens expire this long after they are made unless the maker chose otherwise (only owners may choose never). */
export const API_TOKEN_DEFAULT_DAYS = 90;

/** The header a sign-up through an invitation link carries the link's secret in. */
export const INVITATION_HEADER = "x-opsbench-invitation";

/**
 * The header Better Auth reads the client's address from (sessions' IP). The web app sets it from the socket's
 * address, or from X-Forwarded-For when the socket is a trusted proxy; a client's own value never gets through.
 */
export const CLIENT_ADDRESS_HEADER = "x-opsbench-client";

/**
 * Better Auth endpoints not served over HTTP: those that hand invitation ids to any member (list-invitations,
 * get-full-organization, get-invitation, list-user-invitations), invite-member (invitations are made by the
 * settings page, which gives them their link's secret), and api-key/update (it could take a token's expiry away).
 * The server's own calls (auth.api) still reach them.
 */
export const DISABLED_AUTH_PATHS = [
  "/organization/list-invitations",
  "/organization/get-invitation",
  "/organization/list-user-invitations",
  "/organization/get-full-organization",
  "/organization/invite-member",
  "/api-key/update",
];
