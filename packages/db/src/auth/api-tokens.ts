// API tokens per member and workspace (Better Auth's API-key plugin): hashed at rest, the key itself is
// shown once at creation; revoking deletes it. A token acts as its member, in its workspace only.
import type { Auth } from "./create-auth";
import { type RequestMember, tokenMetadataSchema } from "./request-member";

export interface ApiTokenListItem {
  id: string;
  name: string | null;
  /** The first characters, to tell tokens apart. */
  start: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

type Member = Pick<RequestMember, "userId" | "workspaceId">;

/** Creates a token for the member in their current workspace; the only time its key is returned. */
export async function createApiToken(auth: Auth, member: Member, name: string): Promise<{ id: string; key: string }> {
  if (!member.workspaceId) throw new Error("a token needs a workspace");
  const created = await auth.api.createApiKey({ body: { name, userId: member.userId, metadata: { workspaceId: member.workspaceId } } });
  return { id: created.id, key: created.key };
}

/** The member's tokens for the given workspace, newest first (never their keys). */
export async function listApiTokens(auth: Auth, headers: Headers, workspaceId: string): Promise<ApiTokenListItem[]> {
  const listed = await auth.api.listApiKeys({ headers });
  const keys = Array.isArray(listed) ? listed : listed.apiKeys;
  return keys
    .filter((k) => tokenMetadataSchema.safeParse(k.metadata).data?.workspaceId === workspaceId)
    .map((k) => ({
      id: k.id,
      name: k.name,
      start: k.start,
      createdAt: new Date(k.createdAt),
      lastUsedAt: k.lastRequest ? new Date(k.lastRequest) : null,
    }))
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

/** Revokes one of the signed-in user's own tokens; from then on it answers 401. */
export async function revokeApiToken(auth: Auth, headers: Headers, id: string): Promise<void> {
  await auth.api.deleteApiKey({ headers, body: { keyId: id } });
}
