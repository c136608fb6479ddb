// Shared by the benchmarks: a fast local target (study 001's Go echo server),
// a scratch run to store results in, and small statistics helpers.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDb, defaultWorkspaceId, type Db } from "@opsbench/db";
import { freePort, spawnGroup, stopGroup } from "@opsbench/host";
import { loadEnv } from "../src/env";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { engineBuildInfo } from "../../../engine/build.mjs";

/** The worker's settings, and the k6 the benchmarks run directly (the runner's own functions, in this process). */
export const env = { ...loadEnv(), OPSBENCH_ENGINE: process.env.OPSBENCH_ENGINE || (engineBuildInfo() as { binary: string }).binary };
const repoRoot = path.resolve(import.meta.dirname, "../../..");

/**
 * On a machine with 2+ cores, k6 gets core 0 and the target core 1, so the two
 * do not take turns on the same core and k6 itself is what limits throughput.
 */
export const pinning = os.cpus().length >= 2 && spawnSync("taskset", ["-c", "0", "true"]).status === 0 ? { k6: "0", target: "1" } : null;

/**
 * Gives every process (and thread: `chrt -a`) of a process group the real-time FIFO policy, so other processes on
 * its pinned core cannot preempt it: what a benchmark on a quiet machine would see, on a shared one. Threads made
 * later inherit it. Root only; the kernel still leaves 5% of each second to others (sched_rt_runtime_us). Returns how
 * many processes it changed.
 */
export function realtimeGroup(pgid: number, priority = 20): number {
  let changed = 0;
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${e}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the command's closing parenthesis: state, ppid, pgrp, ...
    const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
    if (pgrp !== pgid) continue;
    const r = spawnSync("chrt", ["-f", "-a", "-p", String(priority), e], { encoding: "utf8" });
    if (r.status === 0) changed++;
  }
  return changed;
}

/**
 * One busy loop per core at the lowest priority there is (SCHED_IDLE): it runs only when nothing else wants the
 * core, so it takes no time from the measured processes, but the virtual CPU never goes idle. An idle vCPU halts
 * and is descheduled by the host, and its wake-ups make CPU per request jitter (what `idle=poll` avoids on a
 * kernel's command line). Returns the stop.
 */
export function keepCoresBusy(cores: string[]): () => Promise<void> {
  const loops = cores.map((core) =>
    spawnGroup("chrt", ["-i", "0", "taskset", "-c", core, "sh", "-c", "while :; do :; done"], { cwd: repoRoot, env: {} }),
  );
  return async () => {
    for (const l of loops) await stopGroup(l.pid);
  };
}

export async function startEchoServer(): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  // This process's own binary: benches of other checkouts may build theirs at the same time.
  const binary = path.join(os.tmpdir(), `opsbench-echo-go-${process.pid}`);
  const build = spawnSync("go", ["build", "-o", binary, "."], { cwd: path.join(repoRoot, "benchapps/echo/go"), encoding: "utf8" });
  if (build.status !== 0) throw new Error(`building benchapps/echo/go failed: ${build.stderr}`);
  const port = await freePort();
  const [cmd, ...cmdArgs] = pinning ? ["taskset", "-c", pinning.target, binary] : [binary];
  const proc = spawnGroup(cmd!, cmdArgs, { cwd: repoRoot, env: { PORT: String(port), HOST: "127.0.0.1" } });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, pid: proc.pid, stop: () => stopGroup(proc.pid).finally(() => rmSync(binary, { force: true })) };
    await new Promise((r) => setTimeout(r, 50));
  }
  await stopGroup(proc.pid);
  throw new Error(`echo server did not start: ${proc.tail()}`);
}

/** A run row to hold a benchmark's results; deleted (with its rows) by `drop`. */
export async function scratchRun(db: Db, name: string) {
  const workspaceId = await defaultWorkspaceId(db);
  const run = await db.run.create({ data: { workspaceId, source: "bench", name, status: "RUNNING" } });
  return { id: run.id, drop: () => db.run.delete({ where: { id: run.id } }) };
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export function args(defaults: Record<string, number>): Record<string, number> {
  const out = { ...defaults };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i]!.replace(/^--/, "");
    if (!(key in out) || argv[i + 1] === undefined || Number.isNaN(Number(argv[i + 1]))) {
      throw new Error(
        `unknown or bad option ${argv[i]}; options: ${Object.keys(defaults)
          .map((k) => `--${k} N`)
          .join(" ")}`,
      );
    }
    out[key] = Number(argv[++i]);
  }
  return out;
}

export { createDb };
