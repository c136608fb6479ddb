// Issue 32 finding 7, "the one-machine Postgres trusts every local connection as superuser": OS user `nobody` read
// the users table and the auth secret, and an editor's target env (IOT_DATABASE_URL on the local Postgres) made the
// iot benchapp create a database and hold connections to it. The local Postgres now asks every connection for the
// opsbench role's password (kept in .data/postgres-password, readable by its owner only), and a benchapp that needs
// a database gets a role and database of its own (tests/benchapps.test.ts, "iot on a Postgres database of its own").
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workloadSpec } from "@opsbench/core";
import { startRun } from "@opsbench/jobs";
import { localServices } from "../../scripts/local-services.mjs";
import { openTestStack, testDatabaseUrl, waitForFinal } from "../helpers";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const isRoot = process.getuid?.() === 0;
let stack: Awaited<ReturnType<typeof openTestStack>>;

beforeAll(async () => {
  stack = await openTestStack();
});
afterAll(async () => {
  await stack?.close();
});

/** psql as OS user nobody, to the test Postgres, as `user`, with no password (what any local account can try). */
function psqlAsNobody(user: string, sql: string) {
  const url = new URL(testDatabaseUrl());
  const psql = localServices.postgresBin("psql");
  return spawnSync(
    "runuser",
    ["-u", "nobody", "--", psql!, "-h", url.hostname, "-p", url.port, "-U", user, "-d", "postgres", "-w", "-tAc", sql],
    { encoding: "utf8", env: { PATH: process.env.PATH ?? "" }, timeout: 20_000 },
  );
}

describe("the local Postgres asks every connection for a password", () => {
  it.runIf(isRoot)("OS user nobody cannot connect as opsbench (or any role) without the password, nor read it", () => {
    for (const user of ["opsbench", "postgres", "nobody"]) {
      const r = psqlAsNobody(user, "SELECT pg_read_file('PG_VERSION')");
      expect(r.status, `${user}: ${r.stdout}`).not.toBe(0);
      expect(r.stderr, user).toMatch(/password|authentication/);
    }
    const file = path.join(repoRoot, ".data/postgres-password");
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o077).toBe(0);
    const read = spawnSync("runuser", ["-u", "nobody", "--", "cat", file], { encoding: "utf8" });
    expect(read.status).not.toBe(0);
  });

  it("an editor's target env pointing a benchapp at the local Postgres without the password makes no database", async () => {
    const url = new URL(testDatabaseUrl());
    const evil = `opsbench_evil_${process.pid}`;
    const env = {
      IOT_DATABASE_URL: `postgresql://opsbench@${url.hostname}:${url.port}/${evil}`,
      IOT_CREATE_DATABASE: "1",
      IOT_DB_POOL_MAX: "48",
    };
    await stack.scope.targets.put({
      name: "iot-own-db",
      kind: "local-service",
      spec: { app: "iot", replicas: 1, env, startTimeoutMs: 20_000 },
    });
    await stack.scope.workloads.put({ name: "one-get", spec: workloadSpec.parse({ kind: "script", source: SCRIPT }) });
    const run = await startRun(stack.scope, stack.queue, { targetName: "iot-own-db", workloadName: "one-get" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.status).toBe("FAILED");
    expect(view.error).toMatch(/password/);
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    try {
      const made = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [evil]);
      expect(made.rowCount).toBe(0);
    } finally {
      await admin.end();
    }
  });
});

const SCRIPT = `
import http from "k6/http";
export const options = { vus: 1, iterations: 1 };
export default function () { http.get(__ENV.OPSBENCH_BASE_URL + "/healthz"); }
`;
