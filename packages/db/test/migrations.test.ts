import { mkdtempSync, cpSync, appendFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, defaultMigrationsDir, listMigrations } from "../src/migrations/migrate";
import { shapeFromDatabase, shapeFromSchema } from "./schema-shape";
import { testDatabaseUrl } from "../../../tests/helpers";

const databaseUrl = testDatabaseUrl();
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
});
afterAll(() => client.end());

describe("migrations", () => {
  it("produce exactly the database schema.prisma describes (tables, columns, types, nullability, indexes, enums, foreign keys)", async () => {
    const expected = await shapeFromSchema();
    const actual = await shapeFromDatabase(client);
    expect(Object.keys(expected.columns).length).toBeGreaterThan(50);
    expect(actual).toEqual(expected);
  });

  it("the comparison notices a drift (a column added, nullability changed, an index dropped)", async () => {
    await client.query("BEGIN");
    try {
      await client.query(`ALTER TABLE runs ADD COLUMN surprise integer`);
      await client.query(`ALTER TABLE workspaces ALTER COLUMN name DROP NOT NULL`);
      await client.query(`DROP INDEX runs_status_idx`);
      const actual = await shapeFromDatabase(client);
      const expected = await shapeFromSchema();
      expect(actual.columns["runs.surprise"]).toBe("int4 null");
      expect(actual.columns["workspaces.name"]).toBe("text null");
      expect(expected.columns["workspaces.name"]).toBe("text not null");
      expect(actual.indexes.runs_status_idx).toBeUndefined();
      expect(actual).not.toEqual(expected);
    } finally {
      await client.query("ROLLBACK");
    }
  });

  it("are recorded in _prisma_migrations as Prisma Migrate records them, and re-applying is a no-op", async () => {
    const { rows } = await client.query(
      `SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    const files = listMigrations(defaultMigrationsDir());
    expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(files.map((f) => [f.name, f.checksum]));
    expect(rows.every((r) => r.finished_at !== null && r.applied_steps_count === 1)).toBe(true);
    const again = await applyMigrations(databaseUrl, defaultMigrationsDir());
    expect(again.every((m) => !m.applied)).toBe(true);
  });

  it("refuses a migration edited after it was applied", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-migrations-"));
    cpSync(defaultMigrationsDir(), dir, { recursive: true });
    const first = listMigrations(dir)[0]!;
    appendFileSync(path.join(dir, first.name, "migration.sql"), "\n-- edited\n");
    await expect(applyMigrations(databaseUrl, dir)).rejects.toThrow(/edited after it was applied/);
  });
});
