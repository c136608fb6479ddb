// Child processes of local targets: spawned in their own process group so the
// whole tree can be stopped, with free loopback ports and a bounded log tail.
// Each group is owned, not guessed: its leader's pid is recorded with its start
// time (/proc/<pid>/stat), and a later stop (another worker, after a crash)
// signals the group only while that pid is still the process that was started.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { minimalEnv } from "./process-env";

export interface Spawned {
  child: ChildProcess;
  pid: number;
  /** The leader's start time (clock ticks after boot), recorded beside the pid: see ownsGroup(). */
  startTicks: number | null;
  /** Last lines of stdout+stderr, for error messages. */
  tail: () => string;
  exited: Promise<{ code: number | null; signal: string | null }>;
  /** Set once the process has exited. */
  exit: () => { code: number | null; signal: string | null } | null;
}

export function spawnGroup(
  command: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; onLine?: (line: string) => void },
): Spawned {
  const child = spawn(command, args, {
    cwd: opts.cwd,
    // A minimal environment: the worker's own settings (and their secrets) never reach a benchapp.
    env: { ...minimalEnv(), ...opts.env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let buf = "";
  let partial = "";
  const keep = (chunk: Buffer) => {
    buf = (buf + chunk.toString()).slice(-4000);
  };
  child.stdout!.on("data", (chunk: Buffer) => {
    keep(chunk);
    if (!opts.onLine) return;
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop() ?? "";
    for (const l of lines) if (l.trim()) opts.onLine(l);
  });
  child.stderr!.on("data", keep);
  let exitInfo: { code: number | null; signal: string | null } | null = null;
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      // Node reports the exit before it has read the pipes to their end: a benchapp that printed why it stopped and
      // exited at once had its reason missing from the tail ("no output", seen under load). So the pipes are given a
      // moment to close; not forever, as a child the process left behind may hold them open.
      const drained = [child.stdout!, child.stderr!].map((s) => (s.closed ? null : new Promise((r) => s.once("close", r))));
      void Promise.race([Promise.all(drained), new Promise((r) => setTimeout(r, 500))]).then(() => {
        exitInfo = { code, signal };
        resolve(exitInfo);
      });
    });
    child.once("error", () => {
      exitInfo = { code: -1, signal: null };
      resolve(exitInfo);
    });
  });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  return {
    child,
    pid: child.pid,
    startTicks: processStartTicks(child.pid),
    tail: () => summarizeOutput(buf),
    exited,
    exit: () => exitInfo,
  };
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

/** A process's start time in clock ticks after boot (/proc/<pid>/stat field 22), or null when there is no such process. */
export function processStartTicks(pid: number): number | null {
  return readStat(pid)?.startTicks ?? null;
}

/**
 * Whether the process group led by `pid` may still be the one started at `startTicks`.
 * A pid that now belongs to a process with another start time was reused: Linux never
 * hands out a pid still in use as a process group id, so none of the recorded group is
 * left and nothing may be signalled. Without a recorded start time (state written before
 * start times were kept) the pid is trusted as before.
 */
export function ownsGroup(pid: number, startTicks?: number | null): boolean {
  if (startTicks === undefined || startTicks === null) return true;
  const now = processStartTicks(pid);
  return now === null || now === startTicks;
}

/** Whether any live (non-zombie) process is left in the process group `pgid` (started at `startTicks`, when given). */
export function groupAlive(pgid: number, startTicks?: number | null): boolean {
  if (!ownsGroup(pgid, startTicks)) return false;
  return groupMembers(pgid).length > 0 || isAlive(pgid);
}

/**
 * SIGTERM to the process group, SIGKILL after `graceMs`. Resolves when all are gone.
 * With `startTicks`, a group whose leader's pid now belongs to another process is left alone.
 */
export async function stopGroup(pid: number, graceMs = 5000, startTicks?: number | null): Promise<void> {
  if (!ownsGroup(pid, startTicks)) return;
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
  // Never signal group 0 (our own) or init: a pid of 0 would stop the worker itself.
  if (!Number.isInteger(pid) || pid <= 1) return;
  if (!groupAlive(pid, startTicks)) return;
  signalGroup("SIGTERM");
  const until = Date.now() + graceMs;
  while (Date.now() < until) {
    if (!groupAlive(pid, startTicks)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!ownsGroup(pid, startTicks)) return;
  signalGroup("SIGKILL");
  const hardUntil = Date.now() + 5000;
  while (groupAlive(pid, startTicks) && Date.now() < hardUntil) await new Promise((r) => setTimeout(r, 20));
}

interface ProcStat {
  pid: number;
  state: string;
  pgrp: number;
  ticks: number;
  /** Clock ticks after boot at which the process started. */
  startTicks: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[0] = state (3rd field), [2] = pgrp, [11] utime, [12] stime, [19] starttime
    return {
      pid,
      state: fields[0]!,
      pgrp: Number(fields[2]),
      ticks: Number(fields[11]) + Number(fields[12]),
      startTicks: Number(fields[19]),
    };
  } catch {
    return null;
  }
}

/** Every live (not zombie) process, from one read of /proc; none when /proc cannot be read. */
function liveProcesses(): ProcStat[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const out: ProcStat[] = [];
  for (const e of entries) {
    if (e.charCodeAt(0) < 48 || e.charCodeAt(0) > 57) continue;
    const s = readStat(Number(e));
    if (s && s.state !== "Z") out.push(s);
  }
  return out;
}

/** Live processes of a process group (a replica and whatever it started), from /proc. */
export function groupMembers(pgid: number): ProcStat[] {
  return liveProcesses().filter((s) => s.pgrp === pgid);
}

/** CPU time (user+system) of a process in clock ticks, from /proc. Null if unavailable. */
export function cpuTicks(pid: number): number | null {
  return readStat(pid)?.ticks ?? null;
}

/** CPU ticks of whole process groups (one read of /proc for all), keyed by group id. Missing = gone. */
export function groupCpuTicks(pgids: number[]): Map<number, number> {
  const want = new Set(pgids);
  const out = new Map<number, number>();
  if (want.size === 0) return out;
  for (const s of liveProcesses()) if (want.has(s.pgrp)) out.set(s.pgrp, (out.get(s.pgrp) ?? 0) + s.ticks);
  return out;
}
export const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU % (of one core) of sets of process groups between two calls. Each caller
 * keeps its own meter, so the autoscaler and observe() do not disturb each other.
 * Ticks of processes that exited between calls are lost (a small undercount).
 */
export class CpuMeter {
  private last = new Map<string, { ticks: number; at: number }>();

  /**
   * by "group": ids are process groups (a replica and its children); by "pid": single processes.
   * sinceStart: on the first sight of a key, measure from its first process's start instead of
   * answering null (observe() wants a figure for short-lived instances; the autoscaler does not,
   * as the HPA ignores a pod's first, start-up-heavy sample).
   */
  constructor(
    private readonly by: "group" | "pid" = "group",
    private readonly sinceStart = false,
  ) {}

  /** `groups`: key -> ids. Returns key -> % of one core, or null on the first sight of a key. */
  sample(groups: Map<string, number[]>, now = Date.now()): Map<string, number | null> {
    const ids = [...groups.values()].flat();
    const ticks = this.by === "group" ? groupCpuTicks(ids) : new Map(ids.map((pid) => [pid, cpuTicks(pid) ?? 0]));
    const out = new Map<string, number | null>();
    const next = new Map<string, { ticks: number; at: number }>();
    for (const [key, pgids] of groups) {
      const t = pgids.reduce((a, g) => a + (ticks.get(g) ?? 0), 0);
      let before = this.last.get(key);
      if (!before && this.sinceStart && pgids.length) before = startOf(pgids[0]!, now);
      const seconds = before ? (now - before.at) / 1000 : 0;
      out.set(key, before && seconds > 0 ? Math.max(0, (100 * (t - before.ticks)) / CLOCK_TICKS_PER_SECOND / seconds) : null);
      next.set(key, { ticks: t, at: now });
    }
    this.last = next;
    return out;
  }
}

/** A process's start as a zero-tick sample (its start time from /proc, against /proc/uptime). */
function startOf(pid: number, now: number): { ticks: number; at: number } | undefined {
  const s = readStat(pid);
  if (!s) return undefined;
  try {
    const uptimeSeconds = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
    return { ticks: 0, at: now - (uptimeSeconds - s.startTicks / CLOCK_TICKS_PER_SECOND) * 1000 };
  } catch {
    return undefined;
  }
}

/** The most telling part of a process's output: its first error line if any, else its last lines. */
export function summarizeOutput(output: string): string {
  const lines = output
    .trim()
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const error = lines.find((l) => /^(\w*Error\b|error\b|fatal\b)/i.test(l));
  return error ?? lines.slice(-5).join(" | ");
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
