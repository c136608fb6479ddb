// Reads about workspaces and their people for the settings and invitation pages. Changes go through
// Better Auth's organization API (invitations, roles, removal), which checks the caller's role itself.
import type { Db } from "../client";

/** A pending, unexpired invitation by its id (the id is the secret part of an invitation link). */
export async function loadOpenInvitation(db: Db, id: string) {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  return db.invitation.findFirst({
    where: { id, status: "pending", expiresAt: { gt: new Date() } },
    select: { id: true, email: true, role: true, expiresAt: true, workspace: { select: { name: true } } },
  });
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

/** The workspaces a user belongs to, with their role in each. */
export async function listMemberships(db: Db, userId: string) {
  return db.member.findMany({
    where: { userId },
    orderBy: { createdAt: "asc" },
    select: { role: true, workspace: { select: { id: true, name: true, slug: true } } },
  });
}
