// A workspace's script secrets (issue 37, docs/workloads.md "Environment and secrets"): a value an owner saves
// once, sealed with OPSBENCH_SECRET_KEY for this workspace and name, listed by name only, never answered back.
// Only the worker opens them (openScriptSecrets), for a run that names them.
import { readStoredJson, scriptEnvSchema } from "@opsbench/core";
import type { Db } from "../client";
import { NotFoundError } from "../errors";
import { openSecret, sealSecret } from "../workspaces/secret-box";
import { isUuid } from "./workspace-access";

export interface ScriptSecretItem {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

/** What a script secret's sealed value is bound to: its workspace and name, apart from the credentials' names. */
const secretContext = (workspaceId: string, name: string) => `${workspaceId}/script-secret/${name}`;

const listed = { id: true, name: true, createdAt: true, updatedAt: true } as const;
const item = (r: { id: string; name: string; createdAt: Date; updatedAt: Date }): ScriptSecretItem => ({
  id: r.id,
  name: r.name,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

export function scriptSecretsScope(db: Db, workspaceId: string) {
  return {
    list: async (): Promise<ScriptSecretItem[]> =>
      (await db.scriptSecret.findMany({ where: { workspaceId }, orderBy: { name: "asc" }, select: listed })).map(item),
    /** Seals and saves a value (or replaces the one of that name); throws SecretKeyError without a usable key. */
    put: async (name: string, value: string, secretKey: string | undefined): Promise<ScriptSecretItem & { replaced: boolean }> => {
      const sealed = sealSecret(value, secretKey, secretContext(workspaceId, name));
      const before = await db.scriptSecret.findUnique({ where: { workspaceId_name: { workspaceId, name } }, select: { id: true } });
      const row = await db.scriptSecret.upsert({
        where: { workspaceId_name: { workspaceId, name } },
        create: { workspaceId, name, sealed },
        update: { sealed },
        select: listed,
      });
      return { ...item(row), replaced: before !== null };
    },
    /** Deletes by id or name; NotFoundError for one this workspace does not have. */
    remove: async (idOrName: string): Promise<{ id: string; name: string }> => {
      const row = await db.scriptSecret.findFirst({
        where: { workspaceId, ...(isUuid(idOrName) ? { id: idOrName } : { name: idOrName }) },
        select: { id: true, name: true },
      });
      if (!row) throw new NotFoundError("secret", idOrName);
      await db.scriptSecret.delete({ where: { id: row.id } });
      return row;
    },
    /** Of these names, those the workspace has no secret of (a run naming one is refused before it is made). */
    missing: async (names: readonly string[]): Promise<string[]> => {
      if (names.length === 0) return [];
      const rows = await db.scriptSecret.findMany({ where: { workspaceId, name: { in: [...names] } }, select: { name: true } });
      const have = new Set(rows.map((r) => r.name));
      return names.filter((n) => !have.has(n));
    },
  };
}
export type ScriptSecretsScope = ReturnType<typeof scriptSecretsScope>;

/**
 * The worker's side: the values of the secrets a run names, by name. A name the workspace no longer has, or a
 * value that does not open (OPSBENCH_SECRET_KEY missing or changed), throws with a message naming it, never the value.
 */
export async function openScriptSecrets(
  db: Db,
  workspaceId: string,
  names: readonly string[],
  secretKey: string | undefined,
): Promise<Record<string, string>> {
  if (names.length === 0) return {};
  const rows = await db.scriptSecret.findMany({ where: { workspaceId, name: { in: [...names] } }, select: { name: true, sealed: true } });
  const out: Record<string, string> = {};
  for (const name of names) {
    const row = rows.find((r) => r.name === name);
    if (!row) throw new Error(`the secret ${name} the run names is not in the workspace any more (docs/workloads.md)`);
    try {
      out[name] = openSecret(row.sealed, secretKey, secretContext(workspaceId, name));
    } catch (err) {
      throw new Error(`the secret ${name} does not open: ${(err as Error).message}`);
    }
  }
  return out;
}

/**
 * The worker's side: a run's --env values and the values of the secrets it names (opened with `secretKey`). Throws
 * as openScriptSecrets does, naming the secret, never its value.
 */
export async function runScriptEnv(
  db: Db,
  runId: string,
  secretKey: string | undefined,
): Promise<{ env: Record<string, string>; secrets: Record<string, string> }> {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { workspaceId: true, scriptEnv: true, scriptSecrets: true } });
  return {
    env: readStoredJson(scriptEnvSchema, run.scriptEnv) ?? {},
    secrets: await openScriptSecrets(db, run.workspaceId, run.scriptSecrets, secretKey),
  };
}
