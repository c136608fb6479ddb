// The database role the web app and the worker connect as. The migrate step owns
// the schema (it connects as the owner or a superuser); after migrating it creates
// or updates this role: it can log in, read and write every application table and
// use their sequences, and nothing else: no DDL, no superuser, no migration history.
import pg from "pg";

export interface AppRoleOptions {
  role: string;
  password: string;
  /** The schema the migrations create the tables in. */
  schema?: string;
}

const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Creates the role, or brings an existing one back to exactly these rights and this password. Idempotent. */
export async function ensureAppRole(ownerUrl: string, { role, password, schema = "public" }: AppRoleOptions): Promise<void> {
  if (!ROLE_NAME.test(role)) throw new Error(`app role: "${role}" is not a plain lower-case role name`);
  if (password.length < 8) throw new Error("app role: the password needs at least 8 characters");
  const client = new pg.Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ me: string; db: string }>("SELECT current_user AS me, current_database() AS db");
    const { me, db } = rows[0]!;
    if (me === role) throw new Error(`app role: "${role}" is the role migrations run as; the app needs a role of its own`);
    const r = client.escapeIdentifier(role);
    const s = client.escapeIdentifier(schema);
    const exists = (await client.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role])).rowCount === 1;
    const attributes = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${client.escapeLiteral(password)}`;
    await client.query("BEGIN");
    try {
      await client.query(exists ? `ALTER ROLE ${r} WITH ${attributes}` : `CREATE ROLE ${r} WITH ${attributes}`);
      await client.query(`GRANT CONNECT ON DATABASE ${client.escapeIdentifier(db)} TO ${r}`);
      // Before Postgres 15 every role may create tables in public; only the owner should.
      await client.query(`REVOKE CREATE ON SCHEMA ${s} FROM PUBLIC`);
      await client.query(`REVOKE CREATE ON SCHEMA ${s} FROM ${r}`);
      await client.query(`GRANT USAGE ON SCHEMA ${s} TO ${r}`);
      await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s} TO ${r}`);
      await client.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${s} TO ${r}`);
      // The migration history is the migrate step's alone.
      const history = await client.query("SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = '_prisma_migrations'", [schema]);
      if (history.rowCount === 1) await client.query(`REVOKE ALL ON ${s}."_prisma_migrations" FROM ${r}`);
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK");
      throw new Error(`app role: ${(err as Error).message}`);
    }
  } finally {
    await client.end();
  }
}
