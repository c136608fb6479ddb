// The installer's way to the first account (`opsbench admin create`, and the tests): a setup secret made and used
// at once, so the account becomes the instance admin and owner of "default" exactly as through the setup link.
import type { Db } from "../client";
import type { Auth } from "./create-auth";
import { makeSetupToken, SETUP_HEADER } from "./instance-settings";

export interface FirstAccount {
  userId: string;
  /** The sign-up's response headers (its session cookie). */
  headers: Headers;
}

/** Whether the server has an account yet (none: the web app prints a setup link at start). */
export async function hasAccounts(db: Db): Promise<boolean> {
  return (await db.user.count()) > 0;
}

/** Makes the first account; throws when the server has one already, or Better Auth refuses the input. */
export async function createFirstAccount(
  auth: Auth,
  db: Db,
  input: { email: string; password: string; name?: string },
): Promise<FirstAccount> {
  const secret = await makeSetupToken(db);
  if (!secret) throw new Error("this server has its instance admin already: sign in, and invite people from Settings");
  const signedUp = await auth.api.signUpEmail({
    body: { email: input.email, password: input.password, name: input.name ?? input.email },
    headers: new Headers({ [SETUP_HEADER]: secret }),
    returnHeaders: true,
  });
  return { userId: signedUp.response.user.id, headers: signedUp.headers };
}
