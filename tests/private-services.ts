// Services a fault test may stop and start: its own Postgres cluster (initdb into a
// temp folder, on a free loopback port, migrated with db's applier), its own
// redis-server with the append-only file (the local setup's arguments), and a
// worker child process bound to those two. Never the shared 55432 / 56379.
import { fileRunnerEnv, useRunner } from "./file-services";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chownSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { applyMigrations, defaultMigrationsDir } from "@opsbench/db";
import { localServices, redisServerArgs } from "../scripts/local-services.mjs";
import { freePort, waitForPort } from "./ports";
import { nodeProgram } from "../apps/cli/src/processes";

const isRoot = process.getuid?.() === 0;
const repoRoot = path.resolve(import.meta.dirname, "..");

function idOf(flag: "-u" | "-g", user: string): number {
  return Number(spawnSync("id", [flag, user], { encoding: "utf8" }).stdout.trim());
}

/** Postgres refuses to run as root: as root, its tools run as the distribution's postgres user (as scripts/local-services.mjs does). */
function pgTool(name: string, args: string[]): void {
  const bin = localServices.postgresBin(name);
  if (!bin) throw new Error(`${name} not found (install Postgres 15 or later)`);
  const [cmd, full] = isRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, full, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${name} ${args.join(" ")} failed: ${(r.stderr || r.stdout).trim()}`);
}

export interface PrivatePostgres {
  url: string;
  port: number;
  /** Stops the server at once (fast shutdown: sessions are cut, as in a crash or a failover). */
  stop(): void;
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  destroy(): void;
}

/** A Postgres cluster of the test's own, migrated, on a free loopback port. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-pg-"));
  const data = path.join(dir, "data");
  if (isRoot) chownSync(dir, idOf("-u", "postgres"), idOf("-g", "postgres"));
  pgTool("initdb", ["-D", data, "--auth=trust", "--username=opsbench", "--encoding=UTF8", "--no-locale"]);
  const port = await freePort();
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories='' -c fsync=off -c max_connections=60`;
  let running = false;
  const pg: PrivatePostgres = {
    port,
    url: `postgresql://opsbench@127.0.0.1:${port}/postgres`,
    stop() {
      if (!running) return;
      pgTool("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      running = false;
    },
    async start() {
      pgTool("pg_ctl", ["-D", data, "-l", path.join(dir, "server.log"), "-w", "start", "-o", options]);
      running = true;
      await waitForPort(port, 30_000);
    },
    destroy() {
      try {
        pg.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  await pg.start();
  await applyMigrations(pg.url, defaultMigrationsDir());
  return pg;
}

export interface PrivateRedis {
  url: string;
  /** Shuts Redis down (the append-only file is kept) and starts it again on the same port and folder. */
  restart(downMs?: number): Promise<void>;
  destroy(): void;
}

/** A redis-server of the test's own, with the local setup's arguments (append-only file, noeviction). */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-redis-"));
  const port = await freePort();
  const start = async () => {
    const r = spawnSync("redis-server", redisServerArgs(port, dir), { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`redis-server failed: ${r.stderr.trim()}`);
    await waitForPort(port);
  };
  const stop = async () => {
    const pid = Number(readFileSync(path.join(dir, "redis.pid"), "utf8").trim());
    process.kill(pid, "SIGTERM");
    for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    async restart(downMs = 1000) {
      await stop();
      await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    destroy() {
      stop().finally(() => rmSync(dir, { recursive: true, force: true }));
    },
  };
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface WorkerChild {
  child: ChildProcess;
  logFile: string;
  log(): string;
  stop(): Promise<void>;
}

/** The real worker (apps/worker/src/main.ts) as a child process, in its own process group, bound to the given services. */
export function startWorkerChild(env: { DATABASE_URL: string; REDIS_URL: string } & Record<string, string>): WorkerChild {
  const logDir = mkdtempSync(path.join(os.tmpdir(), "opsbench-worker-"));
  const logFile = path.join(logDir, "worker.log");
  const out = openSync(logFile, "a");
  // The file's k6 runner (the worker waits for it at start).
  void useRunner();
  const child = spawn(process.execPath, nodeProgram("worker"), {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: "info", ...fileRunnerEnv(), ...env },
    stdio: ["ignore", out, out],
    detached: true,
  });
  closeSync(out);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    child,
    logFile,
    log: () => readFileSync(logFile, "utf8"),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        process.kill(-child.pid!, "SIGTERM");
        const timer = setTimeout(() => alive(child.pid!) && process.kill(-child.pid!, "SIGKILL"), 60_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(logDir, { recursive: true, force: true });
    },
  };
}
