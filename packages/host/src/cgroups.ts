// Per-replica CPU and memory limits with Linux cgroups, where the OS allows:
// cgroup v2 (cpu.max, memory.max) when the unified hierarchy has the cpu and
// memory controllers, else cgroup v1 (cpu.cfs_quota_us, memory.limit_in_bytes).
// Anything that fails is reported, not thrown: the run goes on without limits
// and says so (docs/local-engine.md, "Limits").
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = "/sys/fs/cgroup";
const PARENT = "opsbench";
const CFS_PERIOD_US = 100_000;

export interface Limits {
  cpuLimit: number | null;
  memoryLimitMb: number | null;
}

export interface CgroupOutcome {
  enforced: boolean;
  mechanism: "cgroup v2" | "cgroup v1" | null;
  /** Folders the replica's processes join (removed at teardown). */
  paths: string[];
  /** Why limits are not (fully) enforced. */
  reason?: string;
  limits: Limits;
}

export function wantsLimits(l: Limits): boolean {
  return l.cpuLimit !== null || l.memoryLimitMb !== null;
}

function v2Root(): string | null {
  for (const dir of [ROOT, path.join(ROOT, "unified")]) {
    try {
      const ctrls = readFileSync(path.join(dir, "cgroup.controllers"), "utf8").split(/\s+/);
      if (ctrls.includes("cpu") && ctrls.includes("memory")) return dir;
    } catch {
      /* not a v2 mount */
    }
  }
  return null;
}

function enableV2Controllers(dir: string): void {
  const current = readFileSync(path.join(dir, "cgroup.subtree_control"), "utf8");
  if (!/\bcpu\b/.test(current) || !/\bmemory\b/.test(current)) writeFileSync(path.join(dir, "cgroup.subtree_control"), "+cpu +memory");
}

/** Creates the replica's cgroup(s) and writes the limits. Never throws. */
export function createCgroup(name: string, limits: Limits): CgroupOutcome {
  const base = { enforced: false, mechanism: null, paths: [] as string[], limits };
  if (process.platform !== "linux") return { ...base, reason: `cgroups need Linux (this is ${process.platform})` };
  if (typeof process.getuid === "function" && process.getuid() !== 0)
    return { ...base, reason: "creating cgroups needs root; limits are not enforced" };
  const errors: string[] = [];
  const v2 = v2Root();
  if (v2) {
    const dir = path.join(v2, PARENT, name);
    try {
      enableV2Controllers(v2);
      mkdirSync(path.join(v2, PARENT), { recursive: true });
      enableV2Controllers(path.join(v2, PARENT));
      mkdirSync(dir, { recursive: true });
      if (limits.cpuLimit !== null)
        writeFileSync(path.join(dir, "cpu.max"), `${Math.round(limits.cpuLimit * CFS_PERIOD_US)} ${CFS_PERIOD_US}`);
      if (limits.memoryLimitMb !== null) writeFileSync(path.join(dir, "memory.max"), String(limits.memoryLimitMb * 1024 * 1024));
      return { enforced: true, mechanism: "cgroup v2", paths: [dir], limits };
    } catch (err) {
      errors.push(`cgroup v2 at ${v2}: ${(err as Error).message}`);
      void removeCgroups([dir]);
    }
  }
  // cgroup v1: one hierarchy per controller.
  const made: string[] = [];
  try {
    if (limits.cpuLimit !== null) {
      const h = ["cpu", "cpu,cpuacct"].map((c) => path.join(ROOT, c)).find((d) => existsSync(path.join(d, "cpu.cfs_quota_us")));
      if (!h) throw new Error("no cgroup v1 cpu hierarchy");
      const dir = path.join(h, PARENT, name);
      mkdirSync(dir, { recursive: true });
      made.push(dir);
      writeFileSync(path.join(dir, "cpu.cfs_period_us"), String(CFS_PERIOD_US));
      writeFileSync(path.join(dir, "cpu.cfs_quota_us"), String(Math.round(limits.cpuLimit * CFS_PERIOD_US)));
    }
    if (limits.memoryLimitMb !== null) {
      const h = path.join(ROOT, "memory");
      if (!existsSync(path.join(h, "memory.limit_in_bytes"))) throw new Error("no cgroup v1 memory hierarchy");
      const dir = path.join(h, PARENT, name);
      mkdirSync(dir, { recursive: true });
      made.push(dir);
      const bytes = limits.memoryLimitMb * 1024 * 1024;
      writeFileSync(path.join(dir, "memory.limit_in_bytes"), String(bytes));
      // The kernel rounds to pages; anything far from the request means it was not taken.
      const got = Number(readFileSync(path.join(dir, "memory.limit_in_bytes"), "utf8"));
      if (!(Math.abs(got - bytes) < 1024 * 1024)) throw new Error(`memory.limit_in_bytes reads back ${got}, not ${bytes}`);
    }
    return { enforced: true, mechanism: "cgroup v1", paths: made, limits };
  } catch (err) {
    errors.push(`cgroup v1: ${(err as Error).message}`);
    void removeCgroups(made);
  }
  return { ...base, reason: errors.join("; ") };
}

/**
 * Wraps a command so the process joins the cgroups before it execs (so even its
 * first allocation counts), then is the command itself (same pid).
 */
export function inCgroups(paths: string[], command: string[]): string[] {
  if (paths.length === 0) return command;
  const joins = paths.map((_, i) => `echo $$ > "$${i + 1}/cgroup.procs"`).join(" && ");
  return ["sh", "-c", `${joins} && shift ${paths.length} && exec "$@"`, "sh", ...paths, ...command];
}

/** Whether `pid` is in every one of `paths` (read from /proc/<pid>/cgroup). */
export function isMember(pid: number, paths: string[]): boolean {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/cgroup`, "utf8");
  } catch {
    return false;
  }
  const lines = text
    .trim()
    .split("\n")
    .map((l) => l.split(":").slice(2).join(":"));
  return paths.every((p) => {
    const rel = `/${p.split("/").slice(-2).join("/")}`;
    return lines.some((l) => l === rel || l.endsWith(rel));
  });
}

/** Removes cgroup folders (their processes must be gone). Returns the ones that could not be removed. */
export async function removeCgroups(paths: string[]): Promise<string[]> {
  const left: string[] = [];
  for (const p of paths) {
    if (!existsSync(p)) continue;
    let removed = false;
    for (let i = 0; i < 20 && !removed; i++) {
      try {
        rmdirSync(p);
        removed = true;
      } catch {
        // The kernel frees a cgroup a moment after its last process exits.
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    if (!removed) left.push(p);
  }
  return left;
}
