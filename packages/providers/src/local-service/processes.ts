// Child processes of local targets: spawned in their own process group so the
// whole tree can be stopped, with free loopback ports and a bounded log tail.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface Spawned {
  child: ChildProcess;
  pid: number;
  /** Last lines of stdout+stderr, for error messages. */
  tail: () => string;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

export function spawnGroup(command: string, args: string[], opts: { cwd: string; env: Record<string, string> }): Spawned {
  const child = spawn(command, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let buf = "";
  const keep = (chunk: Buffer) => {
    buf = (buf + chunk.toString()).slice(-4000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", () => resolve({ code: -1, signal: null }));
  });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  return { child, pid: child.pid, tail: () => summarizeOutput(buf), exited };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !isZombie(pid);
  } catch {
    return false;
  }
}

function isZombie(pid: number): boolean {
  try {
    return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** SIGTERM to the process group, SIGKILL after `graceMs`. Resolves when all are gone. */
export async function stopGroup(pid: number, graceMs = 5000): Promise<void> {
  const signalGroup = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        /* already gone */
      }
    }
  };
  if (!isAlive(pid)) return;
  signalGroup("SIGTERM");
  const until = Date.now() + graceMs;
  while (Date.now() < until) {
    if (!isAlive(pid)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  signalGroup("SIGKILL");
  while (isAlive(pid)) await new Promise((r) => setTimeout(r, 20));
}

/** CPU time (user+system) of a process in clock ticks, from /proc. Null if unavailable. */
export function cpuTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]); // utime, stime
  } catch {
    return null;
  }
}
export const CLOCK_TICKS_PER_SECOND = 100;

/** The most telling part of a process's output: its first error line if any, else its last lines. */
export function summarizeOutput(output: string): string {
  const lines = output.trim().split("\n").map((l) => l.trim()).filter(Boolean);
  const error = lines.find((l) => /^(\w*Error\b|error\b|fatal\b)/i.test(l));
  return error ?? lines.slice(-5).join(" | ");
}
