// The one source of truth for the settings a machine's opsbench processes share: the local services' ports
// (OPSBENCH_PG_PORT, OPSBENCH_REDIS_PORT, OPSBENCH_WEB_PORT), the URLs the set-up's Postgres and Redis are reached at
// when DATABASE_URL / REDIS_URL are unset (with the passwords the set-up made, in <repository>/.data), and the
// `<VAR>_FILE` form of every secret variable (Kubernetes and Docker secrets are mounted as files).
// Read by scripts/local-services.mjs and scripts/setup.mjs (plain JavaScript: the set-up runs on the machine's own
// Node before it has installed the project's), and by the CLI, the worker and the web app through
// local-services.ts. Every reader takes the environment it is given: a port read once at import from
// process.env is how a second stack's `opsbench import k6` wrote into the first stack's database (issue 38).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

import { LOCAL_DEFAULTS } from "./local-defaults.mjs";

/** The ports the set-up chooses by default; docs/self-hosting.md "Variables" lists them. */
export { LOCAL_DEFAULTS };

/** The local Postgres's superuser: opsbench's own role, which the web app, the worker and migrations use. */
export const LOCAL_POSTGRES_USER = "opsbench";

/**
 * Every variable that holds a secret; each may instead be given as `<VAR>_FILE`, the path of a file holding it
 * (its content, trimmed of surrounding white space, is the value).
 */
export const SECRET_VARIABLES = Object.freeze([
  "DATABASE_URL",
  "REDIS_URL",
  "POSTGRES_PASSWORD",
  "REDIS_PASSWORD",
  "OPSBENCH_APP_DATABASE_URL",
  "OPSBENCH_APP_DB_PASSWORD",
  "OPSBENCH_SECRET_KEY",
  "OPSBENCH_AUTH_SECRET",
  "OPSBENCH_OIDC_CLIENT_SECRET",
  "OPSBENCH_METRICS_TOKEN",
  "OPSBENCH_TOKEN",
  "OPSBENCH_INGEST_TOKEN",
  "OPSBENCH_ADMIN_PASSWORD",
]);

const isSet = (v) => v !== undefined && v !== "";

function port(env, name) {
  const text = env[name];
  if (!isSet(text)) return LOCAL_DEFAULTS[name];
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${name}: "${text}" is not a port (a whole number 1-65535)`);
  return n;
}

/** The local services' ports from `env` (defaults: LOCAL_DEFAULTS); a bad one throws, naming the variable. */
export function localPorts(env = process.env) {
  return { postgres: port(env, "OPSBENCH_PG_PORT"), redis: port(env, "OPSBENCH_REDIS_PORT"), web: port(env, "OPSBENCH_WEB_PORT") };
}

/**
 * `env` with every `<VAR>_FILE` of SECRET_VARIABLES read into `<VAR>` (and the `_FILE` entry removed). Throws, naming
 * the variables, when both are set or the file cannot be read or is empty.
 */
export function withSecretFiles(env) {
  const out = { ...env };
  for (const name of SECRET_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (!isSet(file)) continue;
    if (isSet(env[name])) throw new Error(`${name} and ${name}_FILE are both set: give the secret one way only`);
    let text;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      throw new Error(`${name}_FILE: cannot read "${file}": ${err.code ?? err.message}`);
    }
    const value = text.trim();
    if (!value) throw new Error(`${name}_FILE: "${file}" is empty`);
    out[name] = value;
    delete out[`${name}_FILE`];
  }
  return out;
}

/** Reads the `_FILE`s into `target` itself (a script's process.env, so that what it starts sees plain values). */
export function applySecretFiles(target = process.env) {
  const resolved = withSecretFiles(target);
  for (const name of SECRET_VARIABLES) {
    if (target[`${name}_FILE`] === undefined) continue;
    delete target[`${name}_FILE`];
    if (resolved[name] !== undefined) target[name] = resolved[name];
  }
  return target;
}

const secretIn = (repoRoot, file) => {
  if (!repoRoot) return null;
  const at = path.join(repoRoot, ".data", file);
  return existsSync(at) ? readFileSync(at, "utf8").trim() || null : null;
};

/** The local Postgres's password (made by the set-up, kept in .data/postgres-password), or null. */
export const localPostgresPassword = (repoRoot) => secretIn(repoRoot, "postgres-password");

/** The local Redis's password (made by the set-up, kept in .data/redis/password), or null. */
export const localRedisPassword = (repoRoot) => secretIn(repoRoot, "redis/password");

/** The local Postgres's URL for database `db` on OPSBENCH_PG_PORT of `env`, as opsbench's role, with its password. */
export function localDatabaseUrl(repoRoot, db = "opsbench", env = process.env) {
  const password = localPostgresPassword(repoRoot);
  const auth = password ? `${LOCAL_POSTGRES_USER}:${encodeURIComponent(password)}` : LOCAL_POSTGRES_USER;
  return `postgresql://${auth}@127.0.0.1:${localPorts(env).postgres}/${db}`;
}

/** The local Redis's URL for database `db` on OPSBENCH_REDIS_PORT of `env`, with its password. */
export function localRedisUrl(repoRoot, db = 0, env = process.env) {
  const password = localRedisPassword(repoRoot);
  return `redis://${password ? `:${encodeURIComponent(password)}@` : ""}127.0.0.1:${localPorts(env).redis}/${db}`;
}

/**
 * The environment a process parses: secrets from their `_FILE`s, then DATABASE_URL and REDIS_URL set to the local
 * services' (on the ports `source` names, with their passwords), each only when the environment names no server of
 * its own (neither the URL nor compose's POSTGRES_HOST / REDIS_HOST).
 */
export function resolveLocalEnv(source, repoRoot) {
  const env = withSecretFiles(source);
  if (!isSet(env.DATABASE_URL) && !isSet(env.POSTGRES_HOST)) env.DATABASE_URL = localDatabaseUrl(repoRoot, "opsbench", env);
  if (!isSet(env.REDIS_URL) && !isSet(env.REDIS_HOST)) env.REDIS_URL = localRedisUrl(repoRoot, 0, env);
  return env;
}

/** The repository a process runs from (where scripts/local-services.mjs is), looking up from `start`; null if none. */
export function findRepoRoot(start = process.cwd()) {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "scripts", "local-services.mjs"))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}
