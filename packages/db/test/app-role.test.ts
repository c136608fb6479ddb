// The application's database role, set up by the migrate step, against the real
// Postgres: it reads and writes the app's tables (through Prisma, as web and worker
// do) and cannot change the schema or read the migration history.
// The local Postgres trusts loopback connections, so the password itself is not
// checked here; the role's rights are.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabaseUrl } from "../../../tests/helpers";
import { createDb, type Db } from "../src/client";
import { ensureAppRole } from "../src/migrations/app-role";

const ownerUrl = testDatabaseUrl();
const role = `opsbench_app_test_${process.pid}`;
const password = "p@ss#w?rd/:x' \"%";

const urlAs = (user: string) => {
  const u = new URL(ownerUrl);
  u.username = user;
  u.password = encodeURIComponent(password);
  return u.toString();
};

let owner: pg.Client;
let app: pg.Client;
let db: Db;

beforeAll(async () => {
  owner = new pg.Client({ connectionString: ownerUrl });
  await owner.connect();
  await ensureAppRole(ownerUrl, { role, password });
  // Twice: the migrate service runs it on every start.
  await ensureAppRole(ownerUrl, { role, password });
  app = new pg.Client({ connectionString: urlAs(role) });
  await app.connect();
  db = createDb(urlAs(role), { max: 2 });
});

afterAll(async () => {
  await db?.$disconnect();
  await app?.end();
  await owner.query(`DROP OWNED BY ${owner.escapeIdentifier(role)}`);
  await owner.query(`DROP ROLE IF EXISTS ${owner.escapeIdentifier(role)}`);
  await owner.end();
});

describe("the application database role", () => {
  it("is a plain login role: no superuser, no database or role creation", async () => {
    const { rows } = await owner.query(
      "SELECT rolsuper, rolcreatedb, rolcreaterole, rolcanlogin, rolbypassrls FROM pg_roles WHERE rolname = $1",
      [role],
    );
    expect(rows).toEqual([{ rolsuper: false, rolcreatedb: false, rolcreaterole: false, rolcanlogin: true, rolbypassrls: false }]);
    expect((await app.query("SELECT current_user AS me")).rows[0].me).toBe(role);
  });

  it("reads, writes, updates and deletes application rows through Prisma, and uses the id sequences", async () => {
    const slug = `app-role-${process.pid}`;
    const created = await db.workspace.create({ data: { slug, name: "app role" } });
    expect((await db.workspace.findUnique({ where: { slug } }))?.id).toBe(created.id);
    await db.workspace.update({ where: { id: created.id }, data: { name: "renamed" } });
    expect((await db.workspace.findUnique({ where: { id: created.id } }))?.name).toBe("renamed");
    await db.workspace.delete({ where: { id: created.id } });
    expect(await db.workspace.count({ where: { slug } })).toBe(0);
    const next = await app.query("SELECT nextval(pg_get_serial_sequence('run_events', 'id')) AS id");
    expect(Number(next.rows[0].id)).toBeGreaterThan(0);
  });

  it.each([
    ["create a table", "CREATE TABLE app_role_probe (id int)"],
    ["drop the schema", "DROP SCHEMA public CASCADE"],
    ["drop a table", "DROP TABLE workspaces"],
    ["alter a table", "ALTER TABLE runs ADD COLUMN probe int"],
    ["truncate a table", "TRUNCATE workspaces CASCADE"],
    ["read the migration history", `SELECT * FROM "_prisma_migrations"`],
    ["create a role", "CREATE ROLE app_role_probe"],
  ])("cannot %s", async (_what, sql) => {
    await expect(app.query(sql)).rejects.toThrow(/permission denied|must be owner|must have/i);
  });

  it("refuses to be the role the migrations run as", async () => {
    const me = (await owner.query("SELECT current_user AS me")).rows[0].me as string;
    await expect(ensureAppRole(ownerUrl, { role: me, password })).rejects.toThrow(/role of its own/);
  });
});
