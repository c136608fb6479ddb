// The instance's own settings, one row: whether anyone may sign up (closed by default) and where such accounts
// land, who the instance admin is (the first account, made with the one-time setup link), and the secret Better
// Auth signs cookies with when the environment gives none.
import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../client";

const ROW = 1;

export async function loadInstanceSettings(db: Db) {
  return db.instanceSettings.upsert({ where: { id: ROW }, create: { id: ROW }, update: {} });
}

/** SHA-256 (hex) of a link's secret: setup links and invitation links are stored only as this. */
export const hashLinkSecret = (secret: string): string => createHash("sha256").update(secret, "utf8").digest("hex");

/** A new link secret: 32 random bytes, base64url (43 characters). */
export const newLinkSecret = (): string => randomBytes(32).toString("base64url");

/** The header a sign-up carries the setup link's secret in (the sign-up page sends it; so does `opsbench admin create`). */
export const SETUP_HEADER = "x-opsbench-setup";

/**
 * Makes a new one-time setup secret for the first account, replacing any earlier one (only the newest link works);
 * null when the instance already has its admin. The secret is returned once and stored hashed.
 */
export async function makeSetupToken(db: Db): Promise<string | null> {
  await loadInstanceSettings(db);
  const secret = newLinkSecret();
  const { count } = await db.instanceSettings.updateMany({
    where: { id: ROW, adminUserId: null },
    data: { setupTokenHash: hashLinkSecret(secret), setupEmail: null },
  });
  return count === 1 ? secret : null;
}

/** Whether `secret` is the current setup link's and the instance has no admin yet (does not use it up). */
export async function setupTokenValid(db: Db, secret: string | null | undefined): Promise<boolean> {
  if (!secret) return false;
  const found = await db.instanceSettings.count({ where: { id: ROW, adminUserId: null, setupTokenHash: hashLinkSecret(secret) } });
  return found === 1;
}

/** Uses the setup secret up for `email`'s sign-up (true once; false when it is not the current one or was used). */
export async function useSetupToken(db: Db, secret: string, email: string): Promise<boolean> {
  const { count } = await db.instanceSettings.updateMany({
    where: { id: ROW, adminUserId: null, setupTokenHash: hashLinkSecret(secret) },
    data: { setupTokenHash: null, setupEmail: email.toLowerCase() },
  });
  return count === 1;
}

/** Makes `userId` the admin when its address used the setup link and there is no admin yet; true when it did. */
export async function claimInstanceAdmin(db: Db, userId: string, email: string): Promise<boolean> {
  const { count } = await db.instanceSettings.updateMany({
    where: { id: ROW, adminUserId: null, setupEmail: email.toLowerCase() },
    data: { adminUserId: userId, setupEmail: null },
  });
  return count === 1;
}

export async function setOpenSignUp(db: Db, open: boolean): Promise<void> {
  await loadInstanceSettings(db);
  await db.instanceSettings.update({ where: { id: ROW }, data: { openSignUp: open } });
}

/** The workspace accounts that sign up openly join as viewers; null: none (they belong to no workspace). */
export async function setSignUpWorkspace(db: Db, workspaceId: string | null): Promise<void> {
  await loadInstanceSettings(db);
  if (workspaceId && !(await db.workspace.findUnique({ where: { id: workspaceId }, select: { id: true } })))
    throw new Error(`no workspace with id ${workspaceId}`);
  await db.instanceSettings.update({ where: { id: ROW }, data: { signUpWorkspaceId: workspaceId } });
}

/** The cookie-signing secret kept in the database, made once on first use. */
export async function storedAuthSecret(db: Db): Promise<string> {
  const settings = await loadInstanceSettings(db);
  if (settings.authSecret) return settings.authSecret;
  await db.instanceSettings.updateMany({
    where: { id: ROW, authSecret: null },
    data: { authSecret: randomBytes(32).toString("base64url") },
  });
  const again = await loadInstanceSettings(db);
  if (!again.authSecret) throw new Error("could not store the auth secret");
  return again.authSecret;
}
