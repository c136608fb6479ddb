// The account a test file of sign-in and roles acts as: the first one in the file's own database, so the
// instance admin and owner of the "default" workspace, made as the installer's `opsbench admin create` does
// (a one-time setup secret made and used at once). API calls send its token, browser pages its session.
import { createApiToken, createDb, createFirstAccount, defaultWorkspaceId, makeSetupToken, storedAuthSecret } from "@opsbench/db";
import { createAuth } from "@opsbench/db/auth";
import { fileServices, useWeb } from "./file-services";

export interface TestIdentity {
  email: string;
  password: string;
  /** An API token of the owner in "default" (Authorization: Bearer). */
  token: string;
  /** The session cookie (name=value) a browser context carries. */
  sessionCookie: { name: string; value: string };
}

export const TEST_OWNER = { email: "owner@opsbench.test", password: "test-owner-password", name: "Test owner" };

export async function createTestIdentity(databaseUrl: string): Promise<TestIdentity> {
  const db = createDb(databaseUrl, { max: 2 });
  try {
    const auth = createAuth(db, { secret: await storedAuthSecret(db) });
    const signedUp = await createFirstAccount(auth, db, TEST_OWNER);
    const cookie = signedUp.headers.get("set-cookie")?.match(/^([^=;]+)=([^;]*)/);
    if (!cookie?.[1] || !cookie[2]) throw new Error("signing up the test owner set no session cookie");
    const member = { userId: signedUp.userId, workspaceId: await defaultWorkspaceId(db), role: "owner" as const };
    const { key } = await createApiToken(auth, member, "tests");
    return { email: TEST_OWNER.email, password: TEST_OWNER.password, token: key, sessionCookie: { name: cookie[1], value: cookie[2] } };
  } finally {
    await db.$disconnect();
  }
}

/** The file's web app with sign-in required (OPSBENCH_AUTH=required), and its first account (the owner); `env`: more of the web app's environment. */
export async function startSignedInWeb(env?: Record<string, string>): Promise<{ web: string; owner: TestIdentity }> {
  const web = await useWeb({ auth: "required", ...(env ? { env } : {}) });
  return { web, owner: await createTestIdentity(fileServices().databaseUrl) };
}

/**
 * The file's web app with sign-in required on a database with no account at all (the template has none): the
 * first sign-up through the pages, with the setup link (setupLink), becomes the instance admin. Refuses to start on
 * a database that has one.
 */
export async function startWebWithoutAccounts(): Promise<string> {
  const db = createDb(fileServices().databaseUrl, { max: 1 });
  try {
    const accounts = await db.user.count();
    if (accounts > 0) throw new Error(`the file's database already has ${accounts} account(s): the journey starts with none`);
  } finally {
    await db.$disconnect();
  }
  return useWeb({ auth: "required" });
}

/** A one-time setup link's path (`/sign-up?setup=<secret>`), as `opsbench admin setup-link` prints it. */
export async function setupLinkPath(): Promise<string> {
  const db = createDb(fileServices().databaseUrl, { max: 1 });
  try {
    const secret = await makeSetupToken(db);
    if (!secret) throw new Error("the file's database has its instance admin already");
    return `/sign-up?setup=${secret}`;
  } finally {
    await db.$disconnect();
  }
}
