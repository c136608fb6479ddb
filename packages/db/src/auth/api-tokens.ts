// API tokens per member and workspace (Better Auth's API-key plugin): hashed at rest, the key itself is
// shown once at creation; revoking deletes it. A token acts as its member, in its workspace only. Tokens expire
// (90 days by default; 1 to 90 days on request); only a workspace's owners may make one that never expires.
import { API_TOKEN_DEFAULT_DAYS } from "./auth-options";
import type { Auth } from "./create-auth";
import { type RequestMember, tokenMetadataSchema } from "./request-member";

export interface ApiTokenListItem {
  id: string;
  name: string | null;
  /** The first characters, to tell tokens apart. */
  start: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** Null: never (an owner chose so). */
  expiresAt: Date | null;
}

type Member = Pick<RequestMember, "userId" | "workspaceId"> & { role?: RequestMember["role"] };

/**
 * Creates a token for the member in their current workspace; the only time its key is returned. `expiresInDays`:
 * 1 to 90 (default 90), or null for never, which only an owner may choose.
 */
export async function createApiToken(
  auth: Auth,
  member: Member,
  name: string,
  expiresInDays: number | null = API_TOKEN_DEFAULT_DAYS,
): Promise<{ id: string; key: string; expiresAt: Date | null }> {
  if (!member.workspaceId) throw new Error("a token needs a workspace");
  if (expiresInDays === null && member.role !== "owner") throw new Error("only a workspace's owners may make a token that never expires");
  if (expiresInDays !== null && !(Number.isInteger(expiresInDays) && expiresInDays >= 1 && expiresInDays <= API_TOKEN_DEFAULT_DAYS))
    throw new Error(`a token expires in 1 to ${API_TOKEN_DEFAULT_DAYS} days (got ${expiresInDays})`);
  const created = await auth.api.createApiKey({
    body: {
      name,
      userId: member.userId,
      metadata: { workspaceId: member.workspaceId },
      ...(expiresInDays !== null ? { expiresIn: expiresInDays * 86_400 } : {}),
    },
  });
  if (expiresInDays === null) {
    await auth.api.updateApiKey({ body: { keyId: created.id, userId: member.userId, expiresIn: null } });
    return { id: created.id, key: created.key, expiresAt: null };
  }
  return { id: created.id, key: created.key, expiresAt: created.expiresAt ? new Date(created.expiresAt) : null };
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
      expiresAt: k.expiresAt ? new Date(k.expiresAt) : null,
    }))
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

/** Revokes one of the signed-in user's own tokens; from then on it answers 401. */
export async function revokeApiToken(auth: Auth, headers: Headers, id: string): Promise<void> {
  await auth.api.deleteApiKey({ headers, body: { keyId: id } });
}
