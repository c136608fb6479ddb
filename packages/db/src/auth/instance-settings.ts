// The instance's own settings, one row: whether anyone may sign up, who the instance admin is (the first
// account), and the secret Better Auth signs cookies with when the environment gives none.
import { randomBytes } from "node:crypto";
import type { Db } from "../client";

const ROW = 1;

export async function loadInstanceSettings(db: Db) {
  return db.instanceSettings.upsert({ where: { id: ROW }, create: { id: ROW }, update: {} });
}

/** Makes `userId` the admin if there is none yet; true when it did (the first account wins, also under a race). */
export async function claimInstanceAdmin(db: Db, userId: string): Promise<boolean> {
  await loadInstanceSettings(db);
  const { count } = await db.instanceSettings.updateMany({ where: { id: ROW, adminUserId: null }, data: { adminUserId: userId } });
  return count === 1;
}

export async function setOpenSignUp(db: Db, open: boolean): Promise<void> {
  await loadInstanceSettings(db);
  await db.instanceSettings.update({ where: { id: ROW }, data: { openSignUp: open } });
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
