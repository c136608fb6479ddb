// The one-machine install's Postgres and Redis (scripts/local-services.mjs starts them on 127.0.0.1:55432 and
// 127.0.0.1:56379) have passwords, made when the setup first started them and kept in <repository>/.data
// (mode 0600), like compose's POSTGRES_PASSWORD and REDIS_PASSWORD: another user of the machine reaches neither.
// Processes with no DATABASE_URL / REDIS_URL of their own (the CLI, the worker, the tests) connect with them.
// Node only (it reads files): not exported from the package's index, which the web app's browser code imports.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

export const LOCAL_POSTGRES_PORT = Number(process.env.OPSBENCH_PG_PORT ?? 55432);
export const LOCAL_REDIS_PORT = Number(process.env.OPSBENCH_REDIS_PORT ?? 56379);
/** The local Postgres's superuser: opsbench's own role, which the web app, the worker and migrations use. */
export const LOCAL_POSTGRES_USER = "opsbench";

const secretIn = (repoRoot: string, file: string): string | null => {
  const at = path.join(repoRoot, ".data", file);
  return existsSync(at) ? readFileSync(at, "utf8").trim() || null : null;
};

/** The local Postgres's password, or null when it has none (not started here, or started before opsbench set one). */
export const localPostgresPassword = (repoRoot: string): string | null => secretIn(repoRoot, "postgres-password");

/** The local Redis's password, or null when it has none (started before opsbench set one, or not started here). */
export const localRedisPassword = (repoRoot: string): string | null => secretIn(repoRoot, "redis/password");

/** The local Postgres's URL for database `db`, as opsbench's role, with its password when it has one. */
export function localDatabaseUrl(repoRoot: string, db = "opsbench"): string {
  const password = localPostgresPassword(repoRoot);
  const auth = password ? `${LOCAL_POSTGRES_USER}:${encodeURIComponent(password)}` : LOCAL_POSTGRES_USER;
  return `postgresql://${auth}@127.0.0.1:${LOCAL_POSTGRES_PORT}/${db}`;
}

/** The local Redis's URL for database `db`, with its password when it has one. */
export function localRedisUrl(repoRoot: string, db = 0): string {
  const password = localRedisPassword(repoRoot);
  return `redis://${password ? `:${encodeURIComponent(password)}@` : ""}127.0.0.1:${LOCAL_REDIS_PORT}/${db}`;
}

/**
 * The environment with DATABASE_URL and REDIS_URL set to the local services' (with their passwords), each only
 * when the environment names no server of its own (neither the URL nor compose's POSTGRES_HOST / REDIS_HOST).
 */
export function withLocalServiceUrls(source: NodeJS.ProcessEnv, repoRoot: string): NodeJS.ProcessEnv {
  const env = { ...source };
  if (!env.DATABASE_URL && !env.POSTGRES_HOST) env.DATABASE_URL = localDatabaseUrl(repoRoot);
  if (!env.REDIS_URL && !env.REDIS_HOST) env.REDIS_URL = localRedisUrl(repoRoot, 0);
  return env;
}
