// An invitation's link secret (the link is `/invite/<secret>`): made here, stored hashed, matched here. Apart from
// workspace-members.ts, which uses Better Auth's API, because create-auth.ts checks an accepted invitation's secret.
import type { Db } from "../client";
import { hashLinkSecret, newLinkSecret } from "./instance-settings";

/**
 * A pending, unexpired invitation by its link's secret (the link is `/invite/<secret>`; only the secret's hash is
 * stored, so neither the database nor any listing gives a working link).
 */
export async function loadOpenInvitation(db: Db, secret: string) {
  if (!/^[A-Za-z0-9_-]{43}$/.test(secret)) return null;
  return db.invitation.findFirst({
    where: { secretHash: hashLinkSecret(secret), status: "pending", expiresAt: { gt: new Date() } },
    select: { id: true, email: true, role: true, expiresAt: true, workspace: { select: { name: true } } },
  });
}

/** Gives a new invitation its link's secret (stored hashed) and returns the secret: shown once, in the link. */
export async function attachInvitationSecret(db: Db, invitationId: string): Promise<string> {
  const secret = newLinkSecret();
  await db.invitation.update({ where: { id: invitationId }, data: { secretHash: hashLinkSecret(secret) } });
  return secret;
}

/** Whether `secret` is the link's secret of this pending, unexpired invitation. */
export async function invitationSecretMatches(db: Db, invitationId: string, secret: unknown): Promise<boolean> {
  if (typeof secret !== "string" || !/^[0-9a-f-]{36}$/i.test(invitationId)) return false;
  const found = await db.invitation.count({
    where: { id: invitationId, secretHash: hashLinkSecret(secret), status: "pending", expiresAt: { gt: new Date() } },
  });
  return found === 1;
}
