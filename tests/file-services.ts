// The services one test file runs against, made for that file alone: a database
// cloned from the migrated template and a Redis key prefix (the services and
// own-process projects open them before each file: tests/setup/), and, when the file
// asks, a worker and a web server bound to those two. So files run in parallel
// without seeing each other's rows, jobs or workers. All of it goes after the file.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { expect, inject } from "vitest";
import { createRunQueue } from "@opsbench/jobs";
import { childEnv } from "../apps/cli/src/env";
import { ensureRunner, ensureWorker, startWeb, WebPortTakenError, type Managed } from "../apps/cli/src/processes";
import { shareMachine } from "./machine-share";
import { freePort, reservePort, waitForPortClosed } from "./ports";

export { freePort };
import { fileCpuDir, testStack, webBuildStateOf } from "./stack-env";
import { cloneTemplate, dropDatabase } from "./test-databases";

declare module "vitest" {
  export interface ProvidedContext {
    /** Starts the name of every database and Redis key prefix of this run (stack-env.ts runTagOf). */
    runTag: string;
    /** Files (relative to the repository) that need the machine to themselves (machine-share.ts). */
    aloneFiles: string[];
    /** Globs of the files (relative to the repository) that get the web app before they begin (setup/service-file.ts). */
    webFiles: string[];
    /** Globs of those whose web app requires sign-in from the start. */
    signedInWebFiles: string[];
    /** The folder of the CLI's, worker's and runner's bundles (setup/node-bundles.ts). */
    nodeBundles: string;
  }
}

/** The file's worker: started in the test's own process (startWorker), or as `apps/worker/src/main.ts` by the CLI's code. */
type FileWorker = { inProcess: { close(): Promise<void> } } | { process: Managed | null };

/**
 * What tests/in-process-worker.ts exports. It is imported by a path TypeScript does not follow: the web app's
 * typecheck includes its tests (which import this file) under Next's ProcessEnv, and must not take in the worker's tree.
 */
export interface InProcessWorkerModule {
  startInProcessWorker(env: NodeJS.ProcessEnv, logFile: string): Promise<{ close(): Promise<void> }>;
}
const inProcessWorkerModule = path.join(import.meta.dirname, "in-process-worker.ts");

/** The web app's OPSBENCH_AUTH: "off" (no sign-in, as the CLI starts it) unless a file asks for "required". */
export type AuthMode = "required" | "off";

interface FileServices {
  /** The file's database and Redis key prefix. */
  name: string;
  databaseUrl: string;
  redisUrl: string;
  /** OPSBENCH_SECRET_KEY of the file's web app and worker. */
  secretKey: string;
  worker: Promise<FileWorker> | null;
  /** Whether the file's worker is a process of its own (a file that tests the process), not one in the test's. */
  workerAsProcess: boolean;
  /** The file's k6 runner, when a test started workers of its own (useRunner). */
  runner: Promise<Managed | null> | null;
  web: { url: string; managed: Managed | null; auth: AuthMode } | null;
  /** The web app's port, chosen before the worker starts: the worker refuses load to it. */
  webPort: number;
  /** Holds webPort until the web app starts, so that no other file's server takes it meanwhile. */
  releaseWebPort: () => Promise<void>;
  /** The settings the file's worker was started with beyond the defaults (useWorker({ env })). */
  workerEnv: Record<string, string>;
  releaseMachine: () => Promise<void>;
  /** The file, relative to the repository. */
  file: string;
  /** This process's CPU seconds when the file began (processCpuSeconds). */
  cpuAtStart: number | null;
  /** When the file's set-up began (ms since the epoch): the run's timeline of which files ran together. */
  startedAt: number;
  /** process.env as the file found it: restored after it, for the next file in the same process (isolate: false). */
  envAtStart: NodeJS.ProcessEnv;
}

/**
 * Where the tests' workers let load go although opsbench did not start it: the loopback stand-ins the tests start
 * on ports the system picks (an `endpoint` target, moto's and the fakes' cloud addresses). opsbench's own ports are
 * refused whatever this says. A file that tests the allowlist itself starts its worker with its own (useWorker({ env })).
 */
export const TEST_LOAD_ALLOWED_HOSTS = "127.0.0.1:1024-65535,localhost:1024-65535,[::1]:1024-65535";

let current: FileServices | null = null;
const repoRoot = path.resolve(import.meta.dirname, "..");

/** Where a run notes the processes it started, so a later run can stop them if this one was killed. */
export const childrenDir = (runTag: string) => path.resolve(repoRoot, ".data/test-stack", runTag);

function noteChild(managed: Managed | null) {
  for (const m of managed ? [managed, ...managed.companions] : []) {
    const pid = m.child.pid;
    if (!pid) continue;
    mkdirSync(childrenDir(inject("runTag")), { recursive: true });
    writeFileSync(path.join(childrenDir(inject("runTag")), String(pid)), "");
  }
}

async function stopChild(managed: Managed | null) {
  if (!managed) return;
  await managed.stop();
  for (const m of [managed, ...managed.companions])
    if (m.child.pid) rmSync(path.join(childrenDir(inject("runTag")), String(m.child.pid)), { force: true });
}

/** The file's services; only files of the services and own-process projects have them. */
export function fileServices(): FileServices {
  if (!current) {
    throw new Error(
      "this test file uses the test services, but its vitest project starts none: list it under the services project in vitest.config.ts (not unit)",
    );
  }
  return current;
}

/** A Redis URL whose `?prefix=` keeps opsbench's queues apart (packages/jobs queuePrefix). */
function redisUrlWithPrefix(prefix: string): string {
  const url = new URL(testStack.redisUrl);
  url.searchParams.set("prefix", prefix);
  return url.toString();
}

/**
 * CPU seconds of this process and of the children it has reaped (user + system, from /proc/self/stat), or null off
 * Linux. A file's processes (its web server, runner, k6, Chromium) are its children, so the difference across the
 * file is what the whole file cost the machine: the suite is CPU-bound, so this, not wall time, says what to make cheaper.
 */
function processCpuSeconds(): number | null {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime, stime, cutime, cstime: fields 14-17 of proc(5), counted from the state (field 3) here.
    return fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0) / 100;
  } catch {
    return null;
  }
}

export async function openFileServices(): Promise<void> {
  const startedAt = Date.now();
  const envAtStart = { ...process.env };
  const cpuAtStart = processCpuSeconds();
  const file = path.relative(repoRoot, expect.getState().testPath ?? "");
  const releaseMachine = await shareMachine(inject("aloneFiles").includes(file) ? "alone" : "shared");
  const name = `${inject("runTag")}_${randomBytes(4).toString("hex")}`;
  const webPort = await reservePort();
  current = {
    name,
    databaseUrl: await cloneTemplate(name),
    redisUrl: redisUrlWithPrefix(name),
    secretKey: randomBytes(32).toString("hex"),
    worker: null,
    workerAsProcess: false,
    runner: null,
    web: null,
    webPort: webPort.port,
    releaseWebPort: webPort.release,
    workerEnv: {},
    releaseMachine,
    file,
    cpuAtStart,
    startedAt,
    envAtStart,
  };
  // Workers the file's tests spawn themselves (with process.env) get the same allowlist.
  process.env.OPSBENCH_LOAD_ALLOWED_HOSTS ??= TEST_LOAD_ALLOWED_HOSTS;
  // Every worker, runner and CLI the file starts runs from its bundle (apps/cli/src/processes.ts nodeProgram).
  process.env.OPSBENCH_NODE_BUNDLES = inject("nodeBundles");
}

/**
 * The web app the file gets before it begins: none unless it matches one of vitest.config.ts's `webFiles`; sign-in
 * required for one of its `signedInWebFiles`.
 */
export function fileWebAuth(): AuthMode | null {
  const matches = (globs: string[]) => globs.some((glob) => path.matchesGlob(fileServices().file, glob));
  if (!matches(inject("webFiles"))) return null;
  return matches(inject("signedInWebFiles")) ? "required" : "off";
}

const cliEnv = (s: FileServices, webPort = s.webPort, auth: AuthMode = "off") => ({
  DATABASE_URL: s.databaseUrl,
  REDIS_URL: s.redisUrl,
  OPSBENCH_WEB_PORT: webPort,
  OPSBENCH_NEXT_DIST_DIR: testStack.nextDistDir,
  OPSBENCH_AUTH: auth,
  // One key per file: the web app seals credentials with it, the worker opens them.
  OPSBENCH_SECRET_KEY: s.secretKey,
  // The file's own k6 runner, a host of its own in the load lock (files share the machine through machine-share.ts).
  OPSBENCH_RUNNER_SOCKET: runnerSocketOf(s.name),
  OPSBENCH_RUNNER_HOST_ID: `test-${s.name}`,
});

/** A short path: a unix socket's must fit in 108 bytes. */
export const runnerSocketOf = (name: string) => path.join(os.tmpdir(), `opsbench-runner-${name}`, "runner.sock");

/**
 * Starts the file's k6 runner (once), for tests that spawn workers themselves: give them
 * `fileRunnerEnv()`. A worker waits for its runner a while, so it may be spawned before this resolves.
 */
export function useRunner(): Promise<Managed | null> {
  const s = fileServices();
  s.runner ??= ensureRunner(cliEnv(s), () => {}).then((runner) => {
    noteChild(runner);
    return runner;
  });
  return s.runner;
}

/** Starts a new runner for the file (after a test killed the one it had). */
export function restartRunner(): Promise<Managed | null> {
  fileServices().runner = null;
  return useRunner();
}

/** What a worker the test spawns itself needs to reach the file's runner. */
export const fileRunnerEnv = () => ({ OPSBENCH_RUNNER_SOCKET: runnerSocketOf(fileServices().name) });

/**
 * Starts the file's worker (once; later calls wait for the same one), in the test's own process unless the file
 * tests the worker process itself (`asProcess`: its environment, its signals). `env` adds worker settings (e.g. its
 * own OPSBENCH_LOAD_ALLOWED_HOSTS); a worker already started with other settings, or the other way, is replaced.
 */
export async function useWorker({ env, asProcess }: { env?: Record<string, string>; asProcess?: boolean } = {}): Promise<void> {
  const s = fileServices();
  const changed =
    (env && JSON.stringify(env) !== JSON.stringify(s.workerEnv)) || (asProcess !== undefined && asProcess !== s.workerAsProcess);
  if (s.worker && changed) {
    await stopWorker(await s.worker.catch(() => null));
    s.worker = null;
  }
  if (env) s.workerEnv = env;
  if (asProcess !== undefined) s.workerAsProcess = asProcess;
  s.worker ??= (async (): Promise<FileWorker> => {
    await useRunner();
    const workerEnv = { OPSBENCH_LOAD_ALLOWED_HOSTS: TEST_LOAD_ALLOWED_HOSTS, ...s.workerEnv };
    if (!s.workerAsProcess) {
      const { startInProcessWorker }: InProcessWorkerModule = await import(inProcessWorkerModule);
      // Its log where the CLI's worker writes it (.data/logs/worker.log), not in the test's output.
      return {
        inProcess: await startInProcessWorker({ ...childEnv(cliEnv(s)), ...workerEnv }, path.join(repoRoot, ".data/logs/worker.log")),
      };
    }
    const queue = createRunQueue(s.redisUrl);
    try {
      const worker = await ensureWorker(cliEnv(s), queue, () => {}, workerEnv);
      noteChild(worker);
      return { process: worker };
    } finally {
      await queue.close();
    }
  })();
  await s.worker;
}

async function stopWorker(worker: FileWorker | null) {
  if (!worker) return;
  if ("inProcess" in worker) await worker.inProcess.close();
  else await stopChild(worker.process);
}

/**
 * Starts the file's web app (`next start` of the run's web build) and its worker. A file that
 * tests sign-in and roles asks for `{ auth: "required" }`; a web app already started in the other mode is replaced,
 * as is one started without the `env` (web settings, e.g. an OIDC provider) or `port` a file asks for.
 */
export async function useWeb({
  auth = "off",
  env,
  port,
}: {
  auth?: AuthMode;
  env?: Record<string, string>;
  port?: number;
} = {}): Promise<string> {
  const s = fileServices();
  await useWorker();
  if (s.web && (s.web.auth !== auth || env || port)) {
    await stopChild(s.web.managed);
    // Else the next start could find the old server still answering on the port and take it for itself.
    await waitForPortClosed(Number(new URL(s.web.url).port));
    s.web = null;
  }
  if (!s.web) {
    const start = () => startWeb(cliEnv(s, port ?? s.webPort, auth), () => {}, env, { reuse: false });
    await s.releaseWebPort();
    let started: Awaited<ReturnType<typeof startWeb>>;
    try {
      started = await start();
    } catch (err) {
      // Taken in the moment between the release and next's bind: once more on another port, and the worker with it.
      if (!(err instanceof WebPortTakenError) || port) throw err;
      s.webPort = await freePort();
      await stopWorker((await s.worker?.catch(() => null)) ?? null);
      s.worker = null;
      await useWorker();
      started = await start();
    }
    s.web = { ...started, auth };
    noteChild(s.web.managed);
  }
  return s.web.url;
}

/**
 * Waits for the run's web build, which the services project's global set-up started beside the unit files
 * (setup/services.ts), and fails the file with the build's own message when it failed.
 */
export async function waitForWebBuild(): Promise<void> {
  const stateFile = webBuildStateOf(inject("runTag"));
  for (;;) {
    let state: { state: string; message?: string };
    try {
      state = JSON.parse(readFileSync(stateFile, "utf8"));
    } catch {
      return; // no build of this run to wait for (ensureWebBuild in startWeb builds if the sources changed)
    }
    if (state.state === "failed") throw new Error(`the web build of this test run failed: ${state.message}`);
    if (state.state !== "building") return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Deletes every Redis key under `prefix:` (SCAN, never FLUSHDB: other runs may share the database). */
export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 1000 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) await redis.unlink(...keys);
    }
  } finally {
    redis.disconnect();
  }
}

/**
 * Puts process.env back as it was: a file that points this process's workers at its own stand-ins
 * (OPSBENCH_AWS_ENDPOINT_URL) must not point the next file's there too.
 */
function restoreEnv(env: NodeJS.ProcessEnv) {
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  Object.assign(process.env, env);
}

export async function closeFileServices(): Promise<void> {
  const s = current;
  if (!s) return;
  current = null;
  await s.releaseWebPort();
  await stopChild(s.web?.managed ?? null);
  await stopWorker((await s.worker?.catch(() => null)) ?? null);
  await stopChild((await s.runner?.catch(() => null)) ?? null);
  await dropDatabase(s.name);
  await deleteRedisKeys(testStack.redisUrl, s.name);
  await s.releaseMachine();
  restoreEnv(s.envAtStart);
  const cpuAtEnd = processCpuSeconds();
  if (s.cpuAtStart !== null && cpuAtEnd !== null) {
    mkdirSync(fileCpuDir(inject("runTag")), { recursive: true });
    writeFileSync(
      path.join(fileCpuDir(inject("runTag")), `${s.name}.json`),
      JSON.stringify({ file: s.file, cpuSeconds: cpuAtEnd - s.cpuAtStart, startedAt: s.startedAt, endedAt: Date.now(), pid: process.pid }),
    );
  }
}
