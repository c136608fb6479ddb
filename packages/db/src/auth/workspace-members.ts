// Reads about workspaces and their people for the settings and invitation pages. Changes go through
// Better Auth's organization API (invitations, roles, removal), which checks the caller's role itself.
import type { Db } from "../client";
import type { Auth } from "./create-auth";
import { attachInvitationSecret } from "./invitation-secrets";

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
