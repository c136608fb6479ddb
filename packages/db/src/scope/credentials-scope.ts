// A workspace's credentials (docs/credentials.md): sealed before they are stored, listed without their secret,
// opened only by the worker (openCredential).
import {
  editorCredentialRefusal,
  type CredentialKind,
  type CredentialListItem,
  type CredentialSecret,
  credentialSecretSchema,
  isFinalRunStatus,
} from "@opsbench/core";
import type { Db } from "../client";
import { NotFoundError } from "../errors";
import { openSecret, sealContext, sealSecret, SecretKeyError } from "../workspaces/secret-box";
import { isUuid } from "./workspace-access";

const listed = { id: true, name: true, kind: true, createdAt: true, checkedAt: true, editorsMayDeploy: true } as const;

export function credentialsScope(db: Db, workspaceId: string) {
  return {
    /** Seals a secret for this workspace and name (for the worker's check, then for the row). */
    seal: (name: string, secret: CredentialSecret, secretKey: string | undefined) =>
      sealSecret(JSON.stringify(secret), secretKey, sealContext(workspaceId, name)),
    /** Stores (or replaces) a sealed credential a worker has just checked. */
    save: async (input: {
      name: string;
      kind: CredentialKind;
      sealed: string;
      checkedAt: Date;
      /** Given: set; absent: false for a new credential, unchanged for one replaced. */
      editorsMayDeploy?: boolean;
    }): Promise<CredentialListItem> => {
      const data = {
        kind: input.kind,
        secret: input.sealed,
        checkedAt: input.checkedAt,
        ...(input.editorsMayDeploy === undefined ? {} : { editorsMayDeploy: input.editorsMayDeploy }),
      };
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
    /** An owner's change of whether editors may deploy with a credential; NotFoundError for an id not of this workspace. */
    setEditorsMayDeploy: async (id: string, editorsMayDeploy: boolean): Promise<CredentialListItem> => {
      const found = isUuid(id) ? await db.credential.findFirst({ where: { id, workspaceId }, select: { id: true } }) : null;
      if (!found) throw new NotFoundError("credential", id);
      return listItem(await db.credential.update({ where: { id }, data: { editorsMayDeploy }, select: listed }));
    },
    /**
     * Of these credential names, those a member of `role` may not deploy with: for an owner none; for anyone else
     * those of this workspace whose owner has not opened them to editors. A name the workspace does not have is
     * not listed (the run fails before deploy naming it; an owner creating it later leaves it closed by default).
     */
    closedTo: async (role: string, names: (string | null)[]): Promise<string[]> => {
      if (role === "owner") return [];
      const wanted = [...new Set(names.filter((n): n is string => !!n))];
      if (wanted.length === 0) return [];
      const rows = await db.credential.findMany({
        where: { workspaceId, name: { in: wanted } },
        select: { name: true, editorsMayDeploy: true },
      });
      return rows.filter((r) => role !== "editor" || !r.editorsMayDeploy).map((r) => r.name);
    },
    remove: async (id: string): Promise<{ name: string }> => {
      const row = isUuid(id) ? await db.credential.findFirst({ where: { id, workspaceId }, select: { name: true } }) : null;
      if (!row) throw new NotFoundError("credential", id);
      await db.credential.delete({ where: { id } });
      return row;
    },
  };
}
export type CredentialsScope = ReturnType<typeof credentialsScope>;

function listItem(row: {
  id: string;
  name: string;
  kind: string;
  createdAt: Date;
  checkedAt: Date | null;
  editorsMayDeploy: boolean;
}): CredentialListItem {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as CredentialKind,
    createdAt: row.createdAt.toISOString(),
    checkedAt: row.checkedAt?.toISOString() ?? null,
    editorsMayDeploy: row.editorsMayDeploy,
  };
}

/**
 * The worker's check before deploy: may the member who asked for the run deploy with this credential now? The
 * member's current role in the run's workspace decides (an owner: yes; an editor: when the credential is open to
 * editors; anyone else, or someone no longer a member: no). A run with no requester was made without a signed-in
 * member (the CLI, or a local app without sign-in, where everyone is the owner). Answers the refusal, or null.
 */
export async function credentialRefusalForRequester(
  db: Db,
  workspaceId: string,
  requestedBy: string | null,
  name: string,
): Promise<string | null> {
  if (!requestedBy) return null;
  const member = await db.member.findUnique({
    where: { organizationId_userId: { organizationId: workspaceId, userId: requestedBy } },
    select: { role: true },
  });
  if (!member) return `credential "${name}": the member who asked for this run is no longer a member of the workspace`;
  if (member.role === "owner") return null;
  const row = await db.credential.findUnique({
    where: { workspaceId_name: { workspaceId, name } },
    select: { editorsMayDeploy: true },
  });
  if (!row) return null; // the credential step names a credential the workspace does not have
  if (member.role === "editor" && row.editorsMayDeploy) return null;
  return editorCredentialRefusal(name, member.role);
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

/** Every workspace's credentials of a kind, opened (the reaper visits each); one that does not open is skipped and named. */
export async function openCredentialsOfKind(
  db: Db,
  kind: CredentialKind,
  secretKey: string | undefined,
): Promise<{ opened: { workspaceId: string; name: string; secret: CredentialSecret }[]; unreadable: string[] }> {
  const rows = await db.credential.findMany({ where: { kind }, select: { workspaceId: true, name: true, secret: true } });
  const opened: { workspaceId: string; name: string; secret: CredentialSecret }[] = [];
  const unreadable: string[] = [];
  for (const r of rows) {
    try {
      opened.push({ workspaceId: r.workspaceId, name: r.name, secret: openSealedCredential(r.secret, secretKey, r.workspaceId, r.name) });
    } catch {
      unreadable.push(r.name);
    }
  }
  return { opened, unreadable };
}

/** Of these run ids, those of the workspace that are final (only their resources may be reaped). */
export async function finalRunIds(db: Db, workspaceId: string, runIds: string[]): Promise<string[]> {
  const ids = runIds.filter(isUuid);
  if (ids.length === 0) return [];
  const runs = await db.run.findMany({ where: { id: { in: ids }, workspaceId }, select: { id: true, status: true } });
  return runs.filter((r) => isFinalRunStatus(r.status)).map((r) => r.id);
}
