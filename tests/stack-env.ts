import path from "node:path";
import { localDatabaseUrl, localRedisUrl } from "@opsbench/core/local-services";
// Where the test services live. Tests use a Postgres server and a Redis database
// of their own, so `npm test` never touches the demo's data; every database and
// Redis key they make is named after the test database's name, so two
// checkouts with different TEST_DATABASE_URLs never touch each other's.
const repoRoot = path.resolve(import.meta.dirname, "..");
export const testStack = {
  // The local Postgres and Redis have passwords (scripts/local-services.mjs; none when started before there were).
  databaseUrl: process.env.TEST_DATABASE_URL ?? localDatabaseUrl(repoRoot, "opsbench_test"),
  redisUrl: process.env.TEST_REDIS_URL ?? localRedisUrl(repoRoot, 1),
  /** The test build of the web app lives apart from the demo's (.next). */
  nextDistDir: process.env.OPSBENCH_NEXT_DIST_DIR ?? ".next-test",
};

/** The test database's name: the stem of every database and key prefix the tests make. */
export const stackName = new URL(testStack.databaseUrl).pathname.slice(1);

/** The migrated database each test file's database is cloned from. */
export const templateName = `${stackName}_template`;

/** A database of this checkout's tests on the same server (another path, same credentials). */
export function databaseUrlOf(name: string): string {
  const url = new URL(testStack.databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The prefix of a test run's databases and Redis keys: it names the vitest process,
 * so a later run can tell the leftovers of a run that was killed (its process is gone).
 */
export const runTagOf = (pid: number) => `${runTagStem}${pid}`;
export const runTagStem = `${stackName}_p`;

/** Where each file of a run notes the CPU seconds it cost and when it ran (file-services.ts), for the timing report (setup/timing-reporter.ts). */
export const fileCpuDir = (runTag: string) => path.join(repoRoot, ".data/test-cpu", runTag);

/**
 * The web build of a run (setup/services.ts starts it beside the unit files; each browser file waits for it):
 * `{ state: "building" | "built" | "failed", message? }`.
 */
export const webBuildStateOf = (runTag: string) => path.join(repoRoot, ".data/test-web-build", `${runTag}.json`);
