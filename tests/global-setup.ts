// Starts the real stack the integration tests run against: a freshly migrated
// test database, a flushed Redis db, a worker, and the built web app.
import type { TestProject } from "vitest/node";
import pg from "pg";
import { Redis } from "ioredis";
import { applyMigrations, defaultMigrationsDir } from "@opsbench/db";
import { createRunQueue } from "@opsbench/jobs";
import { ensureWorker, startWeb, type Managed } from "../packages/cli/src/processes";
import { testStack } from "./stack-env";
import { createTestIdentity } from "./test-identity";

const log = (m: string) => process.stderr.write(`[test stack] ${m}\n`);

export async function setup(project: TestProject) {
  const client = new pg.Client({ connectionString: testStack.databaseUrl });
  await client.connect();
  await client.query("DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;");
  await client.end();
  await applyMigrations(testStack.databaseUrl, defaultMigrationsDir());
  project.provide("testIdentity", await createTestIdentity(testStack.databaseUrl));

  const redis = new Redis(testStack.redisUrl);
  await redis.flushdb();
  await redis.quit();

  const env = {
    DATABASE_URL: testStack.databaseUrl,
    REDIS_URL: testStack.redisUrl,
    OPSBENCH_WEB_PORT: testStack.webPort,
    OPSBENCH_NEXT_DIST_DIR: testStack.nextDistDir,
  };
  const queue = createRunQueue(testStack.redisUrl);
  const children: Managed[] = [];
  try {
    const worker = await ensureWorker(env, queue, log);
    if (worker) children.push(worker);
    // TEST_SKIP_WEB=1 skips building and starting the web app, for quick runs of tests that do not use it.
    if (process.env.TEST_SKIP_WEB === "1") {
      project.provide("webUrl", "");
    } else {
      const web = await startWeb(env, log);
      if (web.managed) children.push(web.managed);
      project.provide("webUrl", web.url);
    }
  } finally {
    await queue.close();
  }
  project.provide("databaseUrl", testStack.databaseUrl);
  project.provide("redisUrl", testStack.redisUrl);

  return async () => {
    await Promise.all(children.map((c) => c.stop()));
  };
}
