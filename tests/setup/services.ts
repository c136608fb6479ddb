// Global set-up of the projects that use services (services, own-process): the
// migrated template every test file's database is cloned from, the web app's
// build for the files that get a web server, and at the end (or at the next run,
// if this one was killed) nothing left: no database, Redis key or process of the run.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { ensureWebBuild } from "../../apps/cli/src/processes";
import { childrenDir, deleteRedisKeys } from "../file-services";
import { isAlive } from "../helpers";
import { fileCpuDir, runTagOf, runTagStem, testStack, webBuildStateOf } from "../stack-env";
import { databasesStartingWith, dropDatabase, ensureTemplate, runsWithDatabases } from "../test-databases";
import { buildNodeBundles } from "./node-bundles";

const log = (m: string) => process.stderr.write(`[test services] ${m}\n`);

/** Stops the processes a run started and drops its databases and Redis keys. */
async function clearRun(runTag: string) {
  let children: string[] = [];
  try {
    children = readdirSync(childrenDir(runTag));
  } catch {
    /* none noted */
  }
  for (const pid of children.map(Number)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
  rmSync(childrenDir(runTag), { recursive: true, force: true });
  rmSync(fileCpuDir(runTag), { recursive: true, force: true });
  for (const name of await databasesStartingWith(`${runTag}_`)) await dropDatabase(name);
  await deleteRedisKeys(testStack.redisUrl, `${runTag}_*`);
}

/** Earlier runs of this checkout whose vitest process is gone but whose databases or processes are not. */
async function killedRuns(): Promise<number[]> {
  let noted: string[] = [];
  try {
    noted = readdirSync(childrenDir("")).filter((tag) => tag.startsWith(runTagStem));
  } catch {
    /* none noted */
  }
  const pids = [...(await runsWithDatabases()), ...noted.map((tag) => Number(tag.slice(runTagStem.length)))];
  return [...new Set(pids)].filter((pid) => pid !== process.pid && !isAlive(pid));
}

export async function setup(project: TestProject) {
  const started = Date.now();
  const parts: Array<[string, number]> = [];
  const part = async (name: string, work: () => Promise<unknown>) => {
    const t = Date.now();
    await work();
    parts.push([name, (Date.now() - t) / 1000]);
  };
  for (const pid of await killedRuns()) {
    log(`clearing what a killed test run (process ${pid}) left`);
    await clearRun(runTagOf(pid));
  }
  await part("template database", () => ensureTemplate(log));
  const nodeBundles = path.resolve(import.meta.dirname, "../../.data/test-bundles");
  await part("CLI, worker and runner bundles", () => buildNodeBundles(nodeBundles));
  const runTag = runTagOf(process.pid);
  const summary = path.resolve(import.meta.dirname, `../../.data/test-global-setup-${project.name}.json`);
  // Read by scripts/test.mjs for its summary of where the time went.
  const writeSummary = () =>
    writeFileSync(summary, JSON.stringify({ project: project.name, seconds: (Date.now() - started) / 1000, parts }));
  mkdirSync(path.dirname(summary), { recursive: true });
  // A run that ends before the web build does (one file, `npm run test:changed`) stops it: left running, it would
  // write into the build directory the next run builds into.
  const webBuild = new AbortController();
  let webBuildDone: Promise<unknown> = Promise.resolve();
  if (project.name === "services") {
    // Vitest runs every project's global set-up before any file, and the unit files first and alone: they leave a
    // core mostly idle for a minute, so the web build runs beside them, not before them. Each file that gets a web
    // server waits for it (waitForWebBuild, file-services.ts). It is a no-op when the sources have not changed since
    // the last build (ensureWebBuild).
    const state = webBuildStateOf(runTag);
    mkdirSync(path.dirname(state), { recursive: true });
    writeFileSync(state, JSON.stringify({ state: "building" }));
    const t = Date.now();
    webBuildDone = ensureWebBuild(
      {
        DATABASE_URL: testStack.databaseUrl,
        REDIS_URL: testStack.redisUrl,
        OPSBENCH_WEB_PORT: 0,
        OPSBENCH_NEXT_DIST_DIR: testStack.nextDistDir,
      },
      log,
      { signal: webBuild.signal },
    ).then(
      () => {
        parts.push(["web build (beside the unit files)", (Date.now() - t) / 1000]);
        writeSummary();
        writeFileSync(state, JSON.stringify({ state: "built" }));
      },
      (err: Error) => writeFileSync(state, JSON.stringify({ state: "failed", message: err.message })),
    );
  }
  writeSummary();
  project.provide("runTag", runTag);
  project.provide("nodeBundles", nodeBundles);
  // Each file clears its own; this catches files that were cut short.
  return async () => {
    webBuild.abort();
    await webBuildDone;
    await clearRun(runTag);
  };
}
