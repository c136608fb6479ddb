// The long-lived processes the CLI may start for the user: the k6 runner and the
// worker beside it, and the web app (built first when its sources changed since the last build).
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import http from "node:http";
import { createRequire } from "node:module";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { queueWorkers, type RunQueue } from "@opsbench/jobs";
import { childEnv, repoRoot, runnerEnv, runnerSocket, type CliEnv } from "./env";
import { liveLine, withSpinner } from "./terminal-progress";

export interface Managed {
  name: string;
  child: ChildProcess;
  /** Started with it, stopped after it (the worker's runner). */
  companions: Managed[];
  stop(): Promise<void>;
}

/**
 * Whether a process of the group is still running. A zombie does not count: an orphan's reaper (PID 1 of a
 * container) may take its time. Linux lists the group in /proc; elsewhere signal 0 to the group tells.
 */
function groupAlive(pgid: number): boolean {
  if (existsSync("/proc/self/stat")) {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      } catch {
        continue; // gone meanwhile
      }
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ")".
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z") return true;
    }
    return false;
  }
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function manage(name: string, child: ChildProcess, companions: Managed[] = []): Managed {
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stopOwn = async () => {
    const leaderGone = child.exitCode !== null || child.signalCode !== null;
    if (leaderGone && !groupAlive(child.pid!)) return;
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      child.kill("SIGTERM");
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        /* gone */
      }
    }, 60_000);
    if (!leaderGone) await exited;
    // The leader (npx, for the web app) exits first; the server under it may still be draining its keep-alive
    // connections. Stopped means every process of the group is gone.
    while (groupAlive(child.pid!)) await new Promise((r) => setTimeout(r, 50));
    clearTimeout(timer);
  };
  return {
    name,
    child,
    companions,
    async stop() {
      await stopOwn();
      for (const c of companions) await c.stop();
    },
  };
}

/** Whether a runner answers on this socket. */
function runnerAnswers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ socketPath, path: "/health", timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
  });
}

/**
 * Starts the k6 runner (apps/runner) unless one answers on the socket already. It gets only
 * its own settings: no database or Redis address, no secret key (runnerEnv).
 */
export async function ensureRunner(env: CliEnv, log: (m: string) => void): Promise<Managed | null> {
  const socket = runnerSocket(env);
  if (await runnerAnswers(socket)) return null;
  const { file: logFile, fd: out } = openLog("runner.log");
  log(`starting the k6 runner (log: ${path.relative(process.cwd(), logFile)})`);
  const child = spawn(process.execPath, ["--import", "tsx", "apps/runner/src/main.ts"], {
    cwd: repoRoot,
    env: runnerEnv(env),
    stdio: ["ignore", out, out],
    detached: true,
  });
  closeSync(out);
  const until = Date.now() + 30_000;
  while (!(await runnerAnswers(socket))) {
    if (child.exitCode !== null)
      throw new Error(`the k6 runner exited at start-up (code ${child.exitCode}); the end of its log:\n${tailOf(logFile, 15)}`);
    if (Date.now() > until) throw new Error(`the k6 runner did not answer on ${socket} within 30 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return manage("runner", child);
}

/** Starts a worker unless one is already consuming the run queue. */
export async function ensureWorker(
  env: CliEnv,
  queue: RunQueue,
  log: (m: string) => void,
  extraEnv: Record<string, string> = {},
): Promise<Managed | null> {
  const workers = await queueWorkers(queue);
  if (workers.length > 0) return null;
  const runner = await ensureRunner(env, log);
  const { file: logFile, fd: out } = openLog("worker.log");
  log(`starting a worker (log: ${path.relative(process.cwd(), logFile)})`);
  const child = spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
    cwd: repoRoot,
    env: { ...childEnv(env), ...extraEnv },
    stdio: ["ignore", out, out],
    detached: true,
  });
  closeSync(out);
  const until = Date.now() + 30_000;
  while ((await queueWorkers(queue)).length === 0) {
    if (child.exitCode !== null || Date.now() > until) {
      await runner?.stop();
      if (child.exitCode !== null)
        throw new Error(`the worker exited at start-up (code ${child.exitCode}); the end of its log:\n${tailOf(logFile, 15)}`);
      throw new Error("the worker did not connect to the queue within 30 s");
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return manage("worker", child, runner ? [runner] : []);
}

const webDir = path.join(repoRoot, "apps/web");
/** Next's own command, started on this Node (not through npx, which starts npm first: ~0.6 s more a start). */
const nextBin = () => createRequire(path.join(webDir, "package.json")).resolve("next/dist/bin/next");

function webSourceHash(): string {
  const h = createHash("sha256");
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      // Build outputs, and files the build itself rewrites, are not sources.
      if (
        ["node_modules", ".turbo", "generated", "test", "next-env.d.ts"].includes(name) ||
        name.startsWith(".next") ||
        name.endsWith(".tsbuildinfo")
      )
        continue;
      const p = path.join(dir, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else h.update(p).update(readFileSync(p));
    }
  };
  walk(webDir);
  // Every package the web app bundles: a change to @opsbench/api's schemas (a route's input) needs a new build too.
  for (const pkg of ["api", "core", "db", "jobs", "providers"]) walk(path.join(repoRoot, "packages", pkg, "src"));
  return h.digest("hex");
}

/** A log file under .data/logs, opened for appending (the tools' own output goes there, not to the terminal). */
function openLog(name: string): { file: string; fd: number } {
  const file = path.join(repoRoot, ".data/logs", name);
  mkdirSync(path.dirname(file), { recursive: true });
  return { file, fd: openSync(file, "a") };
}

/** The last lines of a log, to show when the step that wrote it failed. */
export function tailOf(file: string, lines = 30): string {
  if (!existsSync(file)) return "";
  return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
}

/** Builds the web app when its sources changed since the last build; returns whether it built. */
export async function ensureWebBuild(env: CliEnv, log: (m: string) => void): Promise<boolean> {
  // Next builds into .next, or wherever OPSBENCH_NEXT_DIST_DIR says (side-by-side builds).
  const distDir = path.join(webDir, env.OPSBENCH_NEXT_DIST_DIR);
  const stamp = path.join(distDir, "opsbench-source-hash");
  const want = webSourceHash();
  if (existsSync(path.join(distDir, "BUILD_ID")) && existsSync(stamp) && readFileSync(stamp, "utf8") === want) return false;
  const { file, fd } = openLog("web-build.log");
  const rel = path.relative(process.cwd(), file);
  log(`building the web app (about a minute; log: ${rel})`);
  const child = spawn("npm", ["run", "build", "--silent"], { cwd: webDir, stdio: ["ignore", fd, fd], env: childEnv(env) });
  closeSync(fd);
  const code = await withSpinner(
    liveLine(),
    "building the web app",
    new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c))),
  );
  if (code !== 0) throw new Error(`building the web app failed (exit ${code}); the end of ${rel}:\n${tailOf(file)}`);
  writeFileSync(stamp, want);
  return true;
}

/** Starts `next start`; `extraEnv` adds the web app's own settings (e.g. a test's OIDC provider). */
export async function startWeb(
  env: CliEnv,
  log: (m: string) => void,
  extraEnv: Record<string, string> = {},
): Promise<{ url: string; managed: Managed | null }> {
  const url = `http://127.0.0.1:${env.OPSBENCH_WEB_PORT}`;
  if (await answers(`${url}/api/v1/runs`)) {
    log(`web app already running at ${url}`);
    return { url, managed: null };
  }
  await ensureWebBuild(env, log);
  const out = openLog("web.log");
  const child = spawn(process.execPath, [nextBin(), "start", "-H", "127.0.0.1", "-p", String(env.OPSBENCH_WEB_PORT)], {
    cwd: webDir,
    env: { ...childEnv(env), ...extraEnv },
    stdio: ["ignore", out.fd, out.fd],
    detached: true,
  });
  closeSync(out.fd);
  const until = Date.now() + 60_000;
  while (!(await answers(`${url}/api/v1/runs`))) {
    if (child.exitCode !== null)
      throw new Error(
        `the web app exited at start-up (code ${child.exitCode}); is port ${env.OPSBENCH_WEB_PORT} taken? The end of its log:\n${tailOf(out.file, 15)}`,
      );
    if (Date.now() > until) throw new Error(`the web app did not answer at ${url} within 60 s`);
    await new Promise((r) => setTimeout(r, 300));
  }
  return { url, managed: manage("web", child) };
}

/**
 * Whether a web app answers at the URL, on a connection of its own: fetch's pooled keep-alive connection to a
 * server that is shutting down would still answer and pass that server off as the new one.
 */
function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 2000 }, (res) => {
      res.resume();
      // The API answers 401 without an account: any answer but a server error means the app is up.
      resolve((res.statusCode ?? 500) < 500);
    });
    req.once("timeout", () => req.destroy());
    req.once("error", () => resolve(false));
  });
}
