// Who is asking, in which workspace, with which role: from an API token (Authorization: Bearer, or
// x-api-key) or else from the session cookie. The role is read from the membership at every request,
// so a member removed or demoted loses their rights at once, tokens included.
import { toWorkspaceRole, type WorkspaceRole } from "@opsbench/core";
import { z } from "zod";
import type { Db } from "../client";
import type { Auth } from "./create-auth";
import { loadInstanceSettings } from "./instance-settings";

export interface RequestMember {
  userId: string;
  email: string;
  name: string;
  /** Null for an account that belongs to no workspace (yet). */
  workspaceId: string | null;
  role: WorkspaceRole | null;
  via: "session" | "token";
  instanceAdmin: boolean;
}

/** What a token carries besides its owner: the workspace it acts in. */
export const tokenMetadataSchema = z.object({ workspaceId: z.string() });

export function tokenFromHeaders(headers: Headers): string | null {
  const bearer = headers.get("authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
  return bearer ?? headers.get("x-api-key") ?? null;
}

async function membership(db: Db, userId: string, workspaceId: string | null) {
  if (!workspaceId) return null;
  return db.member.findFirst({ where: { userId, organizationId: workspaceId }, select: { organizationId: true, role: true } });
}

async function memberOf(db: Db, userId: string, workspaceId: string | null, fallBack: boolean) {
  const found = await membership(db, userId, workspaceId);
  if (found || !fallBack) return found;
  return db.member.findFirst({ where: { userId }, orderBy: { createdAt: "asc" }, select: { organizationId: true, role: true } });
}

/** The signed-in member, or null for an anonymous request, a bad or revoked token, or an expired session. */
export async function authenticateRequest(auth: Auth, db: Db, headers: Headers): Promise<RequestMember | null> {
  const token = tokenFromHeaders(headers);
  let userId: string;
  let workspaceId: string | null;
  let via: RequestMember["via"];
  if (token) {
    const verified = await auth.api.verifyApiKey({ body: { key: token } });
    const meta = tokenMetadataSchema.safeParse(verified.key?.metadata);
    if (!verified.valid || !verified.key || !meta.success) return null;
    userId = verified.key.referenceId;
    workspaceId = meta.data.workspaceId;
    via = "token";
  } else {
    const session = await auth.api.getSession({ headers });
    if (!session) return null;
    userId = session.user.id;
    workspaceId = session.session.activeOrganizationId ?? null;
    via = "session";
  }
  const user = await db.user.findUnique({ where: { id: userId }, select: { email: true, name: true } });
  if (!user) return null;
  // A token acts only in its own workspace; a session falls back to the user's first one.
  const member = await memberOf(db, userId, workspaceId, via === "session");
  if (via === "token" && !member) return null;
  const settings = await loadInstanceSettings(db);
  return {
    userId,
    email: user.email,
    name: user.name,
    workspaceId: member?.organizationId ?? null,
    role: member ? toWorkspaceRole(member.role) : null,
    via,
    instanceAdmin: settings.adminUserId === userId,
  };
}
