// The one-machine install's Redis (scripts/local-services.mjs starts it on 127.0.0.1:56379) has a password, made
// when the setup first started it and kept in <repository>/.data/redis/password (mode 0600), like compose's
// REDIS_PASSWORD. Processes with no REDIS_URL of their own (the CLI, the worker, the tests) connect with it.
// Node only (it reads a file): not exported from the package's index, which the web app's browser code imports.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

export const LOCAL_REDIS_PORT = Number(process.env.OPSBENCH_REDIS_PORT ?? 56379);

/** The local Redis's password, or null when it has none (started before opsbench set one, or not started here). */
export function localRedisPassword(repoRoot: string): string | null {
  const file = path.join(repoRoot, ".data/redis/password");
  return existsSync(file) ? readFileSync(file, "utf8").trim() || null : null;
}

/** The local Redis's URL for database `db`, with its password when it has one. */
export function localRedisUrl(repoRoot: string, db = 0): string {
  const password = localRedisPassword(repoRoot);
  return `redis://${password ? `:${encodeURIComponent(password)}@` : ""}127.0.0.1:${LOCAL_REDIS_PORT}/${db}`;
}

/** The environment with REDIS_URL set to the local Redis's (with its password) when neither it nor REDIS_HOST is set. */
export function withLocalRedisUrl(source: NodeJS.ProcessEnv, repoRoot: string): NodeJS.ProcessEnv {
  if (source.REDIS_URL || source.REDIS_HOST) return source;
  return { ...source, REDIS_URL: localRedisUrl(repoRoot, 0) };
}
