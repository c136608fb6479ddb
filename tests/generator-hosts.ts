// Load generator hosts of our own (issue 21, "many generators, one target"): each is a network namespace of
// tests/remote-hosts.ts with a default route through this machine, IPv4 forwarding on, and its own runner (and, when
// asked, a load-only worker) running inside it. The namespace reaches this machine's Postgres and Redis through two
// small TCP forwarders this process binds to the machine's end of the namespace's veth (an address only the namespace
// reaches); nothing else of the machine listens for it. A remote target (another namespace of remote-hosts.ts) gets a
// route back to the generator hosts (`routeBack`).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { RunnerHealth } from "@opsbench/jobs";
import { RunnerClient } from "../apps/worker/src/runner-client";
import { makeRemoteHost, type RemoteHost } from "./remote-hosts";
import { nodeProgram } from "../apps/cli/src/processes";

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, "..");

export interface GeneratorHost {
  ns: string;
  /** This machine's address toward the host (where its forwarders listen). */
  hostAddress: string;
  /** The host's runner: its socket on the shared file system, and what it reports (its host id). */
  runner: { socket: string; health: RunnerHealth; workDir: string };
  /** Database and Redis URLs as the host reaches them (through the forwarders). */
  databaseUrl: string;
  redisUrl: string;
  /** Starts a load-only worker in the namespace (pinned to `core` when given); the caller waits until it takes the load queue. */
  startWorker(opts?: { core?: number; env?: Record<string, string> }): ChildProcess;
  /** Stops the worker and the runner (SIGTERM, then SIGKILL), the forwarders, and removes the namespace. */
  remove(): Promise<void>;
}

/** A TCP forwarder on `listenHost:port` to 127.0.0.1:`port`. */
async function forward(listenHost: string, port: number): Promise<net.Server> {
  const server = net.createServer((inbound) => {
    const outbound = net.connect({ host: "127.0.0.1", port });
    inbound.pipe(outbound).pipe(inbound);
    const close = () => {
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on("error", close);
    outbound.on("error", close);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, listenHost, resolve);
  });
  return server;
}

/** `url` with its host swapped for `host` (the same port: the forwarder listens on it). */
function through(url: string, host: string): string {
  const u = new URL(url);
  u.hostname = host;
  return u.toString();
}

async function stop(child: ChildProcess | null, graceMs = 10_000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Lets the remote `target` answer the generator hosts (10.231.0.0/16), which it otherwise has no route to. */
export async function routeBack(target: RemoteHost): Promise<void> {
  await run("ip", ["-n", target.ns, "route", "replace", "10.231.0.0/16", "via", target.hostAddress]);
}

/** `core`: the runner (so its k6) is pinned to that CPU. */
export async function makeGeneratorHost(opts: {
  databaseUrl: string;
  redisUrl: string;
  logLevel?: string;
  core?: number;
}): Promise<GeneratorHost> {
  const host = await makeRemoteHost();
  const dir = mkdtempSync(path.join(os.tmpdir(), `opsbench-${host.ns}-`));
  const servers: net.Server[] = [];
  let runnerChild: ChildProcess | null = null;
  let workerChild: ChildProcess | null = null;
  const remove = async () => {
    await stop(workerChild);
    await stop(runnerChild);
    for (const s of servers) await new Promise((r) => s.close(r));
    await host.remove();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run("ip", ["-n", host.ns, "route", "add", "default", "via", host.hostAddress]);
    await run("ip", ["netns", "exec", host.ns, "sysctl", "-qw", "net.ipv4.ip_forward=1"]);
    for (const url of [opts.databaseUrl, opts.redisUrl]) servers.push(await forward(host.hostAddress, Number(new URL(url).port)));
    const socket = path.join(dir, "runner.sock");
    const workDir = path.join(dir, "runs");
    const logLevel = opts.logLevel ?? "warn";
    const pin = opts.core === undefined ? [] : ["taskset", "-c", String(opts.core)];
    runnerChild = spawn("ip", ["netns", "exec", host.ns, ...pin, process.execPath, ...nodeProgram("runner")], {
      cwd: repoRoot,
      // The runner refuses secrets: a plain environment, its socket and work folder; its host id is its default.
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/root",
        OPSBENCH_RUNNER_SOCKET: socket,
        OPSBENCH_WORK_DIR: workDir,
        LOG_LEVEL: logLevel,
      },
      stdio: ["ignore", "inherit", "inherit"],
    });
    const client = new RunnerClient(socket);
    const until = Date.now() + 90_000;
    let health: RunnerHealth | null = null;
    while (!health) {
      if (runnerChild.exitCode !== null) throw new Error(`the runner in ${host.ns} exited with code ${runnerChild.exitCode}`);
      if (Date.now() > until) throw new Error(`the runner in ${host.ns} did not answer within 90 s`);
      health = await client.health().catch(() => null);
      if (!health) await new Promise((r) => setTimeout(r, 300));
    }
    const databaseUrl = through(opts.databaseUrl, host.hostAddress);
    const redisUrl = through(opts.redisUrl, host.hostAddress);
    return {
      ns: host.ns,
      hostAddress: host.hostAddress,
      runner: { socket, health, workDir },
      databaseUrl,
      redisUrl,
      startWorker({ core, env } = {}) {
        const command = [process.execPath, ...nodeProgram("worker"), "--role", "load"];
        workerChild = spawn("ip", ["netns", "exec", host.ns, ...(core === undefined ? [] : ["taskset", "-c", String(core)]), ...command], {
          cwd: repoRoot,
          env: {
            ...process.env,
            DATABASE_URL: databaseUrl,
            REDIS_URL: redisUrl,
            OPSBENCH_RUNNER_SOCKET: socket,
            OPSBENCH_WORK_DIR: workDir,
            LOG_LEVEL: logLevel,
            ...env,
          },
          stdio: ["ignore", "inherit", "inherit"],
        });
        return workerChild;
      },
      remove,
    };
  } catch (err) {
    await remove();
    throw err;
  }
}
