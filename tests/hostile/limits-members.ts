// The callers of the limits area's hostile tests: accounts made directly in the file's database (not through
// sign-up, whose rules are another test's subject), each a member of a workspace with a role, calling the API with
// an API token of that workspace.
import { type Auth, createApiToken, createDb, type Db, storedAuthSecret } from "@opsbench/db";
import { createAuth } from "@opsbench/db/auth";
import type { WorkspaceRole } from "@opsbench/core";
import { testDatabaseUrl } from "../helpers";

export interface Caller {
  userId: string;
  workspaceId: string;
  headers: Record<string, string>;
}

export async function openMembers(): Promise<{ db: Db; auth: Auth }> {
  const db = createDb(testDatabaseUrl(), { max: 3 });
  return { db, auth: createAuth(db, { secret: await storedAuthSecret(db) }) };
}

/** A workspace of its own (a stranger's, say), made directly. */
export async function newWorkspace(db: Db, slug: string): Promise<string> {
  return (await db.workspace.create({ data: { slug, name: slug } })).id;
}

/** A new account, member of `workspaceId` with `role`, and the headers of an API token of it there. */
export async function newMember(db: Db, auth: Auth, email: string, workspaceId: string, role: WorkspaceRole): Promise<Caller> {
  const user = await db.user.create({ data: { email, name: email.split("@")[0]!, emailVerified: true } });
  await db.member.create({ data: { organizationId: workspaceId, userId: user.id, role } });
  const { key } = await createApiToken(auth, { userId: user.id, workspaceId }, "hostile");
  return { userId: user.id, workspaceId, headers: { authorization: `Bearer ${key}` } };
}

/**
 * Headers of a signed-in browser session of the caller's account (pages need a session cookie, not a token): a
 * password is set on the account directly, then it signs in through Better Auth like the sign-in page does.
 */
export async function sessionOf(db: Db, auth: Auth, web: string, caller: Caller): Promise<Record<string, string>> {
  const user = await db.user.findUniqueOrThrow({ where: { id: caller.userId } });
  const password = "hostile-limits-password";
  const hash = await (await auth.$context).password.hash(password);
  await db.account.create({ data: { userId: user.id, accountId: user.id, providerId: "credential", password: hash } });
  const signedIn = await auth.api.signInEmail({ body: { email: user.email, password }, returnHeaders: true });
  const cookie = signedIn.headers.get("set-cookie")?.match(/^[^;]+/)?.[0];
  if (!cookie) throw new Error(`signing in ${user.email} set no session cookie`);
  return { cookie, origin: new URL(web).origin };
}

/** A JSON call to the web app; answers the status and the body (parsed when it is JSON). */
export async function call(
  web: string,
  caller: { headers: Record<string, string> },
  method: string,
  path: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: each test reads the fields of the answer it expects
): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(`${web}${path}`, {
    method,
    headers: { ...caller.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, text };
}
