// The long-lived processes the CLI may start for the user: the k6 runner and the
// worker beside it, and the web app (built first when its sources changed since the last build).
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import http from "node:http";
import { createRequire } from "node:module";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, readlinkSync, statSync, writeFileSync } from "node:fs";
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

/** The live processes of a group, from /proc; null where there is no /proc (macOS). A zombie does not count. */
function groupPids(pgid: number): number[] | null {
  if (!existsSync("/proc/self/stat")) return null;
  const pids: number[] = [];
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
    if (Number(pgrp) === pgid && state !== "Z") pids.push(Number(entry));
  }
  return pids;
}

/**
 * Whether a process of the group is still running. An orphan's reaper (PID 1 of a container) may take its time
 * with a zombie, which does not count. Where there is no /proc, signal 0 to the group tells.
 */
function groupAlive(pgid: number): boolean {
  const pids = groupPids(pgid);
  if (pids) return pids.length > 0;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a process of the group listens on the TCP port (Linux: the socket's inode in /proc/net/tcp*, among the
 * processes' open files); null where there is no /proc. An answer on the port alone does not say whose it is.
 */
function groupListensOn(pgid: number, port: number): boolean | null {
  const pids = groupPids(pgid);
  if (!pids) return null;
  const inodes = new Set<string>();
  const portHex = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      // sl local_address rem_address st ... inode: state 0A is LISTEN.
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(`:${portHex}`) && fields[3] === "0A") inodes.add(fields[9]!);
    }
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (inodes.has(target.slice("socket:[".length, -1)) && target.startsWith("socket:[")) return true;
      } catch {
        /* closed meanwhile */
      }
    }
  }
  return false;
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
 * The arguments that start one of our Node programs on this Node: its source through tsx, or, when
 * OPSBENCH_NODE_BUNDLES names a folder of bundles built from the same sources (the test suite builds them:
 * tests/setup/node-bundles.ts), its bundle, which starts on half the CPU.
 */
export function nodeProgram(name: "worker" | "runner"): string[] {
  const bundles = process.env.OPSBENCH_NODE_BUNDLES;
  return bundles ? [path.join(bundles, `${name}.mjs`)] : ["--import", "tsx", `apps/${name}/src/main.ts`];
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
  const child = spawn(process.execPath, nodeProgram("runner"), {
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
  const child = spawn(process.execPath, nodeProgram("worker"), {
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

/**
 * Builds the web app when its sources changed since the last build; returns whether it built. `signal` stops a build
 * under way (the tests' build beside their first files, when the run ends first): the build then runs in a process
 * group of its own, and the promise rejects once every process of it is gone. Without one, the build stays in the
 * caller's group, so a Ctrl-C in the terminal reaches it too.
 */
export async function ensureWebBuild(env: CliEnv, log: (m: string) => void, { signal }: { signal?: AbortSignal } = {}): Promise<boolean> {
  // Next builds into .next, or wherever OPSBENCH_NEXT_DIST_DIR says (side-by-side builds).
  const distDir = path.join(webDir, env.OPSBENCH_NEXT_DIST_DIR);
  const stamp = path.join(distDir, "opsbench-source-hash");
  const want = webSourceHash();
  if (existsSync(path.join(distDir, "BUILD_ID")) && existsSync(stamp) && readFileSync(stamp, "utf8") === want) return false;
  const { file, fd } = openLog("web-build.log");
  const rel = path.relative(process.cwd(), file);
  log(`building the web app (about a minute; log: ${rel})`);
  const child = spawn("npm", ["run", "build", "--silent"], {
    cwd: webDir,
    stdio: ["ignore", fd, fd],
    env: childEnv(env),
    detached: signal !== undefined,
  });
  closeSync(fd);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping = manage("web build", child).stop();
  };
  signal?.addEventListener("abort", stop, { once: true });
  const code = await withSpinner(
    liveLine(),
    "building the web app",
    new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c))),
  );
  signal?.removeEventListener("abort", stop);
  if (stopping) {
    await stopping;
    throw new Error("the web build was stopped before it finished");
  }
  if (code !== 0) throw new Error(`building the web app failed (exit ${code}); the end of ${rel}:\n${tailOf(file)}`);
  writeFileSync(stamp, want);
  return true;
}

/** The web app's port is taken by another program, or by another opsbench web app when `reuse` is off. */
export class WebPortTakenError extends Error {}

/**
 * Starts `next start`; `extraEnv` adds the web app's own settings (e.g. a test's OIDC provider). An opsbench web
 * app already answering on the port is used as it is, unless `reuse` is off (the tests: each file's own server).
 */
export async function startWeb(
  env: CliEnv,
  log: (m: string) => void,
  extraEnv: Record<string, string> = {},
  { reuse = true }: { reuse?: boolean } = {},
): Promise<{ url: string; managed: Managed | null }> {
  const port = Number(env.OPSBENCH_WEB_PORT);
  const url = `http://127.0.0.1:${port}`;
  const there = await webAppAt(url);
  if (there === "opsbench" && reuse) {
    log(`web app already running at ${url}`);
    return { url, managed: null };
  }
  if (there !== null)
    throw new WebPortTakenError(
      `port ${port} is taken by ${there === "opsbench" ? "another opsbench web app" : "a program that is not opsbench's web app"}; set OPSBENCH_WEB_PORT to a free port`,
    );
  await ensureWebBuild(env, log);
  const out = openLog("web.log");
  const child = spawn(process.execPath, [nextBin(), "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: webDir,
    env: { ...childEnv(env), ...extraEnv },
    stdio: ["ignore", out.fd, out.fd],
    detached: true,
  });
  closeSync(out.fd);
  const until = Date.now() + 60_000;
  // Up when it answers from a socket of its own: a server that took the port meanwhile answers too, while ours
  // fails to bind.
  while (!((await answers(`${url}/api/v1/runs`)) && groupListensOn(child.pid!, port) !== false)) {
    if (child.exitCode !== null) {
      const tail = tailOf(out.file, 15);
      const taken = tail.includes("EADDRINUSE");
      throw new (taken ? WebPortTakenError : Error)(
        `the web app exited at start-up (code ${child.exitCode})${taken ? `: port ${port} is taken` : ""}. The end of its log:\n${tail}`,
      );
    }
    if (Date.now() > until) {
      await manage("web", child).stop();
      throw new Error(`the web app did not answer at ${url} within 60 s; the end of its log:\n${tailOf(out.file, 15)}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return { url, managed: manage("web", child) };
}

/**
 * What answers at the URL: an opsbench web app (its /api/health report), another program, or nothing (null). On a
 * connection of its own, like `answers`.
 */
function webAppAt(url: string): Promise<"opsbench" | "other" | null> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/api/health`, { agent: false, timeout: 5000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk.slice(0, 10_000)));
      res.on("end", () => {
        try {
          const report = JSON.parse(body) as Record<string, unknown>;
          resolve(report && typeof report === "object" && "database" in report && "queues" in report ? "opsbench" : "other");
        } catch {
          resolve("other");
        }
      });
      res.on("error", () => resolve("other"));
    });
    req.once("timeout", () => req.destroy(new Error("timeout")));
    req.once("error", (err: NodeJS.ErrnoException) => resolve(err.code === "ECONNREFUSED" ? null : "other"));
  });
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
