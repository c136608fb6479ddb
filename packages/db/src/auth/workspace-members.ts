// Reads about workspaces and their people for the settings and invitation pages. Changes go through
// Better Auth's organization API (invitations, roles, removal), which checks the caller's role itself.
import type { Db } from "../client";
import type { Auth } from "./create-auth";
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

export async function listWorkspaceMembers(db: Db, workspaceId: string) {
  return db.member.findMany({
    where: { organizationId: workspaceId },
    orderBy: { createdAt: "asc" },
    select: { id: true, role: true, createdAt: true, user: { select: { email: true, name: true } } },
  });
}

export async function listPendingInvitations(db: Db, workspaceId: string) {
  return db.invitation.findMany({
    where: { organizationId: workspaceId, status: "pending", expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
    select: { id: true, email: true, role: true, expiresAt: true },
  });
}

/** Every workspace of the instance, oldest first: what the instance admin picks sign-ups' workspace from. */
export async function listWorkspaces(db: Db) {
  return db.workspace.findMany({ orderBy: { createdAt: "asc" }, select: { id: true, name: true } });
}

/** The workspaces a user belongs to, with their role in each. */
export async function listMemberships(db: Db, userId: string) {
  return db.member.findMany({
    where: { userId },
    orderBy: { createdAt: "asc" },
    select: { role: true, workspace: { select: { id: true, name: true, slug: true } } },
  });
}

/**
 * Invites `email` to the workspace as `role` (Better Auth checks that the caller, by `headers`, is an owner) and
 * returns the invitation link's path, `/invite/<secret>`: the only time the secret exists outside the invitee's hands.
 */
export async function createInvitationLink(
  auth: Auth,
  db: Db,
  headers: Headers,
  input: { email: string; role: "owner" | "editor" | "viewer"; workspaceId: string },
): Promise<{ id: string; path: string }> {
  const invitation = await auth.api.createInvitation({
    headers,
    body: { email: input.email, role: input.role, organizationId: input.workspaceId, resend: true },
  });
  const secret = await attachInvitationSecret(db, invitation.id);
  return { id: invitation.id, path: `/invite/${secret}` };
}
