// A workspace's credentials (docs/credentials.md): sealed before they are stored, listed without their secret,
// opened only by the worker (openCredential).
import { type CredentialKind, type CredentialListItem, type CredentialSecret, credentialSecretSchema } from "@opsbench/core";
import type { Db } from "../client";
import { NotFoundError } from "../errors";
import { openSecret, sealContext, sealSecret, SecretKeyError } from "../secret-box";
import { isUuid } from "./workspace-access";

const listed = { id: true, name: true, kind: true, createdAt: true, checkedAt: true } as const;

export function credentialsScope(db: Db, workspaceId: string) {
  return {
    /** Seals a secret for this workspace and name (for the worker's check, then for the row). */
    seal: (name: string, secret: CredentialSecret, secretKey: string | undefined) =>
      sealSecret(JSON.stringify(secret), secretKey, sealContext(workspaceId, name)),
    /** Stores (or replaces) a sealed credential a worker has just checked. */
    save: async (input: { name: string; kind: CredentialKind; sealed: string; checkedAt: Date }): Promise<CredentialListItem> => {
      const data = { kind: input.kind, secret: input.sealed, checkedAt: input.checkedAt };
      const row = await db.credential.upsert({
        where: { workspaceId_name: { workspaceId, name: input.name } },
        create: { workspaceId, name: input.name, ...data },
        update: { ...data, createdAt: new Date() },
        select: listed,
      });
      return listItem(row);
    },
    list: async (): Promise<CredentialListItem[]> =>
      (await db.credential.findMany({ where: { workspaceId }, orderBy: { name: "asc" }, select: listed })).map(listItem),
    remove: async (id: string): Promise<{ name: string }> => {
      const row = isUuid(id) ? await db.credential.findFirst({ where: { id, workspaceId }, select: { name: true } }) : null;
      if (!row) throw new NotFoundError("credential", id);
      await db.credential.delete({ where: { id } });
      return row;
    },
  };
}
export type CredentialsScope = ReturnType<typeof credentialsScope>;

function listItem(row: { id: string; name: string; kind: string; createdAt: Date; checkedAt: Date | null }): CredentialListItem {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as CredentialKind,
    createdAt: row.createdAt.toISOString(),
    checkedAt: row.checkedAt?.toISOString() ?? null,
  };
}

/** Opens a sealed secret (a check job's, or a row's) made for this workspace and name. */
export function openSealedCredential(sealed: string, secretKey: string | undefined, workspaceId: string, name: string): CredentialSecret {
  const parsed = credentialSecretSchema.safeParse(JSON.parse(openSecret(sealed, secretKey, sealContext(workspaceId, name))));
  if (!parsed.success) throw new SecretKeyError(`credential "${name}" is stored in a shape this version does not read`);
  return parsed.data;
}

/** The worker's read of a credential a target names; throws NotFoundError when the workspace has none of that name. */
export async function openCredential(db: Db, workspaceId: string, name: string, secretKey: string | undefined): Promise<CredentialSecret> {
  const row = await db.credential.findUnique({ where: { workspaceId_name: { workspaceId, name } }, select: { secret: true } });
  if (!row) throw new NotFoundError("credential", name);
  return openSealedCredential(row.secret, secretKey, workspaceId, name);
}

export async function markCredentialChecked(db: Db, workspaceId: string, name: string): Promise<void> {
  await db.credential.updateMany({ where: { workspaceId, name }, data: { checkedAt: new Date() } });
}
