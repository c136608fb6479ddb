// How k6 runs user-controlled scripts (docs/security.md): inside bubblewrap, which
// shows it only its own binary and the run's folder (no /proc, /etc, /home or
// the worker's files), as an unprivileged user with no capabilities, and in a
// network namespace that reaches only the target (packages/providers' load
// network) or, for `k6 inspect`, no network at all. Where the sandbox cannot be
// made, runs are refused unless the admin allows unsandboxed scripts; such runs
// carry a flag.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ALWAYS_BLOCKED_RANGES, type ValidityFlag } from "@opsbench/core";

export interface K6SandboxSettings {
  /** Run k6 unsandboxed where the sandbox cannot be made (the admin's choice); such runs are flagged. */
  allowUnsandboxed: boolean;
  /** Address ranges (CIDR) k6 must never reach, set by the admin, on top of ALWAYS_BLOCKED_RANGES. */
  blockedRanges: string[];
  /** Hosts of the backing services (Postgres, Redis), blocked too where an address list can tell them from the target. */
  backingHosts: string[];
  /** Never sandbox (with allowUnsandboxed): only for benchmarks measuring what the sandbox costs; not a worker setting. */
  off?: boolean;
  /** Memory, thread and output limits of k6 and k6 inspect (DEFAULT_K6_RESOURCES unless given). */
  resources?: K6Resources;
}

/** What one k6 (run or inspect) may take of the runner's machine; each limit hit ends it with a message naming it. */
export interface K6Resources {
  /** Address space of k6 run, MB (RLIMIT_AS; k6 itself needs about 800 MB of it to start). */
  memoryMb: number;
  /** Address space of k6 inspect, MB. */
  inspectMemoryMb: number;
  /** OS threads of k6 (Go's own limit, set by opsbench's output) and processes (RLIMIT_NPROC where it applies). */
  maxThreads: number;
}

export const DEFAULT_K6_RESOURCES: K6Resources = { memoryMb: 4096, inspectMemoryMb: 1536, maxThreads: 2000 };

/** What k6 inspect may print; its options beyond this are refused. */
export const INSPECT_OUTPUT_LIMIT_BYTES = 1 << 20;

/** The longest line the runner reads from k6's opsbench output; longer ones are dropped (counted as malformed). */
export const OUTPUT_LINE_LIMIT_BYTES = 1 << 20;

export const STRICT_SANDBOX: K6SandboxSettings = { allowUnsandboxed: false, blockedRanges: [], backingHosts: [] };

/**
 * The command k6 (and bwrap before it) starts under: prlimit's address-space limit (a script that allocates without
 * bound ends with Go's "out of memory" instead of taking the machine) and process limit (RLIMIT_NPROC counts per
 * real user and does not bind root, so the thread limit below is the one that always holds).
 */
export function resourcePrefix(memoryMb: number, r: K6Resources): string[] {
  return ["prlimit", `--as=${memoryMb * 1024 * 1024}`, `--nproc=${r.maxThreads}`, "--"];
}

/** The variables that make k6 keep to its limits itself: Go's soft memory limit (GC works harder near it) and the thread limit. */
export function resourceEnv(memoryMb: number, r: K6Resources): Record<string, string> {
  return { GOMEMLIMIT: `${Math.floor(memoryMb * 0.75)}MiB`, OPSBENCH_ENGINE_MAX_THREADS: String(r.maxThreads) };
}

/**
 * Watches a stream of k6's stderr for the first text `match` names, across chunk boundaries (the last `carry`
 * characters of one chunk are searched again with the next); `hit` is that reason once seen.
 */
function stderrWatcher(carryChars: number, match: (text: string) => string | null) {
  let carry = "";
  let hit: string | null = null;
  return {
    feed(chunk: string) {
      if (hit) return;
      const text = carry + chunk;
      carry = text.slice(-carryChars);
      hit = match(text);
    },
    get hit() {
      return hit;
    },
  };
}

/**
 * Watches k6's stderr for Go's own words when a limit was hit (the message is at the start of a long stack dump,
 * which the kept tail would lose). Returns the reason, naming the setting, once seen.
 */
export function resourceLimitWatcher(memoryMb: number, r: K6Resources, setting: string) {
  return stderrWatcher(200, (text) => {
    if (
      /fatal error: (runtime: )?out of memory|failed to reserve page summary memory|cannot allocate memory|out of memory allocating/i.test(
        text,
      )
    )
      return `k6 ran out of memory: it may use ${memoryMb} MB of address space (${setting}); the script allocates more`;
    if (/program exceeds \d+-thread limit|thread exhaustion|newosproc|resource temporarily unavailable.*(thread|clone)/i.test(text))
      return `k6 went over its limit of ${r.maxThreads} threads (OPSBENCH_K6_MAX_THREADS)`;
    return null;
  });
}

/**
 * Watches k6's stderr for the engine's refusal of handleSummary()'s files over its caps (engine/internal/summary): the
 * run is then over its limits. A script that prints the same words itself only flags its own run.
 */
export function summaryLimitWatcher() {
  return stderrWatcher(400, (text) => /handleSummary\(\) output over the limit: [^"\n]*/.exec(text)?.[0] ?? null);
}

/** Never reachable from k6: link-local (the cloud metadata services at 169.254.169.254 and fd00:ec2::254), Alibaba's, "this network" (core load-hosts/load-host-policy.ts). */
export { ALWAYS_BLOCKED_RANGES };

/** The user k6 runs as inside the sandbox (nobody). */
const SANDBOX_UID = "65534";

/**
 * The sandbox's /tmp: a tmpfs is the host's memory, outside k6's address-space limit, so it has a size (the engine
 * needs /tmp only to unpack a k6 archive, whose script bundle is 1 MB at most). Everything else but the run's folder
 * is read-only: /dev (device nodes still work), /dev/shm and bubblewrap's own root, which is a tmpfs too.
 */
export const SANDBOX_TMP_BYTES = 64 << 20;

/**
 * bwrap arguments that run `command` seeing only the k6 binary (read-only) and
 * `workDir` (read-write, at the same path so paths in arguments stay valid).
 * `network`: "none" gives an empty network namespace; "inherit" keeps the one
 * bwrap starts in (the load network, entered with `ip netns exec`).
 */
export function bwrapArgs(opts: { binary: string; workDir: string; network: "none" | "inherit" }): string[] {
  return [
    "bwrap",
    "--unshare-all",
    ...(opts.network === "inherit" ? ["--share-net"] : []),
    "--die-with-parent",
    "--cap-drop",
    "ALL",
    "--uid",
    SANDBOX_UID,
    "--gid",
    SANDBOX_UID,
    "--dev",
    "/dev",
    "--remount-ro",
    "/dev",
    "--size",
    String(SANDBOX_TMP_BYTES),
    "--tmpfs",
    "/tmp",
    // After /tmp: the run's folder may live under it.
    "--ro-bind",
    opts.binary,
    opts.binary,
    "--bind",
    opts.workDir,
    opts.workDir,
    "--chdir",
    opts.workDir,
    // Public CA certificates, for HTTPS targets; nothing else of /etc.
    "--ro-bind-try",
    "/etc/ssl/certs",
    "/etc/ssl/certs",
    // Last: the mounts above are made in it.
    "--remount-ro",
    "/",
  ];
}

/** The environment of a sandboxed k6: what the run gives it, nothing of the worker's. */
export function sandboxEnv(workDir: string, env: Record<string, string>): Record<string, string> {
  return { ...env, HOME: workDir, K6_NO_USAGE_REPORT: "true", K6_AUTO_EXTENSION_RESOLUTION: "false" };
}

/** Whether prlimit (util-linux) is here: without it k6 would run without its memory limit, so runs are refused. */
let prlimitProbe: Promise<string | null> | null = null;
export function prlimitProblem(): Promise<string | null> {
  prlimitProbe ??= new Promise<string | null>((resolve) => {
    const child = spawn("prlimit", ["--as=1073741824", "--", "true"], { stdio: "ignore", env: { PATH: process.env.PATH ?? "" } });
    child.once("error", (err) => resolve(`prlimit (util-linux), which limits k6's memory, cannot be started: ${err.message}`));
    child.once("exit", (code) => resolve(code === 0 ? null : `prlimit (util-linux) failed (exit ${code})`));
  });
  return prlimitProbe;
}

const probes = new Map<string, Promise<string | null>>();

/** Why bubblewrap cannot run k6 on this machine (or prlimit cannot limit it), or null when it can (checked once per binary). */
export async function sandboxProblem(binary: string): Promise<string | null> {
  return (await prlimitProblem()) ?? (await bwrapProblem(binary));
}

function bwrapProblem(binary: string): Promise<string | null> {
  let probe = probes.get(binary);
  if (!probe) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-probe-"));
    probe = new Promise<string | null>((resolve) => {
      const args = bwrapArgs({ binary, workDir: dir, network: "none" });
      const child = spawn(args[0]!, [...args.slice(1), binary, "version"], { stdio: ["ignore", "ignore", "pipe"], env: {} });
      let stderr = "";
      child.stderr.on("data", (d) => (stderr += d));
      child.once("error", (err) => resolve(`bubblewrap (bwrap) cannot be started: ${err.message}`));
      child.once("exit", (code) => resolve(code === 0 ? null : `bubblewrap could not start k6: ${stderr.trim() || `exit ${code}`}`));
    }).finally(() => rmSync(dir, { recursive: true, force: true }));
    probes.set(binary, probe);
  }
  return probe;
}

/** A run refused because k6 cannot be sandboxed and the admin did not allow unsandboxed scripts. */
export class SandboxRefused extends Error {}

export function refusal(problem: string): SandboxRefused {
  return new SandboxRefused(
    `k6 cannot be sandboxed on this worker (${problem}); runs are refused unless the admin allows unsandboxed scripts (OPSBENCH_ALLOW_UNSANDBOXED_SCRIPTS=1)`,
  );
}

/** The flag an unsandboxed run carries. */
export function unsandboxedFlag(problem: string, reachable: string[]): ValidityFlag {
  const also = reachable.length ? `; k6 could also reach ${reachable.join(", ")}, which share the target's address` : "";
  return {
    code: "unsandboxed-load",
    message: `k6 ran without the sandbox (${problem}): the script could read the worker's files and reach more than the target${also}`,
  };
}

/**
 * `--blacklist-ip` and `--block-hostnames` for k6: the always-blocked ranges, the
 * admin's, and the backing services, except an address the target itself uses
 * (returned as `reachable`: only the network namespace can separate those).
 */
export function blockArgs(settings: K6SandboxSettings, targetHost: string | null): { args: string[]; reachable: string[] } {
  const ranges = [...ALWAYS_BLOCKED_RANGES, ...settings.blockedRanges];
  const names: string[] = [];
  const reachable: string[] = [];
  const target = targetHost === "localhost" ? "127.0.0.1" : targetHost;
  for (const host of settings.backingHosts) {
    const addresses = host === "localhost" ? ["127.0.0.1", "::1"] : [host.replace(/^\[|\]$/g, "")];
    for (const a of addresses) {
      const literal = /^[\d.]+$/.test(a) || a.includes(":");
      if (!literal) names.push(a);
      else if (a === target) reachable.push(host);
      else ranges.push(a.includes(":") ? `${a}/128` : `${a}/32`);
    }
  }
  return {
    args: ["--blacklist-ip", [...new Set(ranges)].join(","), ...(names.length ? ["--block-hostnames", [...new Set(names)].join(",")] : [])],
    reachable: [...new Set(reachable)],
  };
}
