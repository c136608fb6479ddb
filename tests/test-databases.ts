// The tests' databases: one migrated template per checkout, and a clone of it per
// test file (CREATE DATABASE ... TEMPLATE copies files, far quicker than
// migrating). Every name starts with the checkout's stack name (stack-env.ts).
import { createHash } from "node:crypto";
import pg from "pg";
import { applyMigrations, defaultMigrationsDir, listMigrations } from "@opsbench/db";
import { databaseUrlOf, runTagStem, templateName, testStack } from "./stack-env";

/** Runs `fn` on a connection to the checkout's own test database (never a template or a clone). */
async function withAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testStack.databaseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Makes the template database, unless one migrated with exactly today's migrations is there. */
export async function ensureTemplate(log: (m: string) => void): Promise<void> {
  const migrations = listMigrations(defaultMigrationsDir());
  const hash = createHash("sha256")
    .update(migrations.map((m) => `${m.name}:${m.checksum}`).join("\n"))
    .digest("hex");
  const current = await withAdmin(async (c) => {
    const { rows } = await c.query<{ comment: string | null }>(
      "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
      [templateName],
    );
    return rows[0];
  });
  if (current?.comment === hash) return;
  log(`migrating the template database ${templateName}`);
  await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${quoted(templateName)} WITH (FORCE)`));
  await withAdmin((c) => c.query(`CREATE DATABASE ${quoted(templateName)}`));
  await applyMigrations(databaseUrlOf(templateName), defaultMigrationsDir());
  // Marked ready only once migrated: a run cut short leaves no half-made template behind to reuse.
  await withAdmin((c) => c.query(`COMMENT ON DATABASE ${quoted(templateName)} IS '${hash}'`));
}

/** A fresh database cloned from the template; returns its URL. */
export async function cloneTemplate(name: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      await withAdmin((c) => c.query(`CREATE DATABASE ${quoted(name)} TEMPLATE ${quoted(templateName)}`));
      return databaseUrlOf(name);
    } catch (err) {
      // Two clones at the very same moment can see each other as users of the template.
      if (attempt >= 10 || !/being accessed by other users/.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}

export async function dropDatabase(name: string): Promise<void> {
  await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${quoted(name)} WITH (FORCE)`));
}

/** The databases whose names start with `prefix` (a test run's, or every run's of this checkout). */
export async function databasesStartingWith(prefix: string): Promise<string[]> {
  return withAdmin(async (c) => {
    const { rows } = await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE starts_with(datname, $1)", [prefix]);
    return rows.map((r) => r.datname);
  });
}

/** The vitest processes whose runs have databases (their run tag names the process). */
export async function runsWithDatabases(): Promise<number[]> {
  const pids = (await databasesStartingWith(runTagStem)).map((name) => Number(/^(\d+)_/.exec(name.slice(runTagStem.length))?.[1]));
  return [...new Set(pids.filter((pid) => Number.isInteger(pid)))];
}
