// A local target's `database`: a Postgres database and a role of the deployment's own, on the server the worker is
// given for apps (OPSBENCH_APP_DATABASE_URL, else its own DATABASE_URL's server). The role owns that database and
// nothing else: no superuser, no CREATEDB or CREATEROLE, a connection limit (the one-machine setup also takes
// PUBLIC's CONNECT off opsbench's own databases). So a benchapp, whose env an editor writes, never holds opsbench's role.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { ProviderError } from "../provider";

/** What teardown needs to drop it (saved in the deployment's state before anything is made). */
export interface AppDatabaseRecord {
  name: string;
}

/** Connections the app's role may hold at once (every replica's pool together). */
export const APP_DATABASE_CONNECTION_LIMIT = 64;

/** Names start with this, so a leftover is recognisable (and never one of opsbench's own databases). */
const PREFIX = "opsbench_app_";

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function asAdmin<T>(adminUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}

/** A fresh name for a deployment's database and role (the same for both). */
export function newAppDatabase(): AppDatabaseRecord {
  return { name: `${PREFIX}${randomBytes(6).toString("hex")}` };
}

/** Makes the role and its database; answers the app's URL (the admin URL's server, the role's own password). */
export async function createAppDatabase(adminUrl: string | undefined, db: AppDatabaseRecord): Promise<string> {
  if (!adminUrl)
    throw new ProviderError("the target asks for a database, but the worker was given no Postgres for apps (OPSBENCH_APP_DATABASE_URL)");
  const password = randomBytes(24).toString("base64url");
  await asAdmin(adminUrl, async (c) => {
    await c.query(
      `CREATE ROLE ${ident(db.name)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS CONNECTION LIMIT ${APP_DATABASE_CONNECTION_LIMIT} PASSWORD '${password}'`,
    );
    await c.query(`CREATE DATABASE ${ident(db.name)} OWNER ${ident(db.name)}`);
    await c.query(`REVOKE ALL ON DATABASE ${ident(db.name)} FROM PUBLIC`);
  }).catch((err: Error) => {
    throw new ProviderError(`could not make the target's database ${db.name}: ${err.message}`);
  });
  const url = new URL(adminUrl);
  url.username = db.name;
  url.password = password;
  url.pathname = `/${db.name}`;
  url.search = "";
  return url.toString();
}

/** Drops the database (closing the app's connections) and its role; nothing to do when neither exists. */
export async function dropAppDatabase(adminUrl: string | undefined, db: AppDatabaseRecord): Promise<void> {
  if (!db.name.startsWith(PREFIX)) throw new ProviderError(`refusing to drop "${db.name}": not a database opsbench made for an app`);
  if (!adminUrl) throw new ProviderError(`cannot drop the target's database ${db.name}: the worker was given no Postgres for apps`);
  await asAdmin(adminUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${ident(db.name)} WITH (FORCE)`);
    await c.query(`DROP ROLE IF EXISTS ${ident(db.name)}`);
  }).catch((err: Error) => {
    throw new ProviderError(`could not drop the target's database ${db.name}: ${err.message}`);
  });
}
