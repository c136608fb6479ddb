// Applies prisma/migrations/*/migration.sql in name order and records each in
// `_prisma_migrations` exactly as Prisma Migrate does (same table, same sha256
// checksum), so `prisma migrate deploy` agrees wherever its binary can be had.
import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";

// Prisma Migrate's own advisory lock key, so the two never run at once.
const PRISMA_MIGRATE_LOCK = 72707369;

export interface AppliedMigration {
  name: string;
  applied: boolean;
}

export function listMigrations(migrationsDir: string) {
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(migrationsDir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(migrationsDir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

export async function applyMigrations(databaseUrl: string, migrationsDir: string): Promise<AppliedMigration[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      rolled_back_at: Date | null;
    }>(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"`);
    const done = new Map(rows.filter((r) => r.rolled_back_at === null).map((r) => [r.migration_name, r]));
    const result: AppliedMigration[] = [];
    for (const m of listMigrations(migrationsDir)) {
      const prior = done.get(m.name);
      if (prior) {
        if (prior.finished_at === null)
          throw new Error(`migration ${m.name} failed earlier and needs attention (see _prisma_migrations.logs)`);
        if (prior.checksum !== m.checksum) throw new Error(`migration ${m.name} was edited after it was applied (checksum differs)`);
        result.push({ name: m.name, applied: false });
        continue;
      }
      const id = randomUUID();
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
          [id, m.checksum, m.name],
        );
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`);
      }
      result.push({ name: m.name, applied: true });
    }
    return result;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATE_LOCK]).catch(() => {});
    await client.end();
  }
}

export const defaultMigrationsDir = () =>
  path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "../../../../prisma/migrations");
