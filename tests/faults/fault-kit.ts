// What the fault-injection tests share: a real worker as a child process of the test
// (so it can be SIGKILLed or SIGTERMed), waits on its log and on run rows, and the
// checks every scenario ends with: all rows final, no orphan process, no orphan row.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import type { Db } from "@opsbench/db";
import { fileRunnerEnv, useRunner } from "../file-services";
import { testDatabaseUrl, testRedisUrl } from "../helpers";
import { nodeProgram } from "../../apps/cli/src/processes";

const repoRoot = path.resolve(import.meta.dirname, "../..");

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  log: string;
  /** The worker's log so far. */
  output: () => string;
  exited: Promise<{ code: number | null; signal: string | null; at: number }>;
}

/** Starts `apps/worker/src/main.ts` on the file's database and Redis; resolves once its start-up reconciliation is done. */
export async function startWorker(name: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const w = spawnWorker(name, env);
  await waitFor(`${name} to finish its start-up reconciliation`, () => w.output().includes("start-up reconciliation done"), 60_000, 100, w);
  return w;
}

/** Starts the worker and returns at once. */
export function spawnWorker(name: string, env: Record<string, string> = {}): WorkerProcess {
  // The file's k6 runner; the worker waits for it at start.
  void useRunner();
  const dir = path.join(os.tmpdir(), "opsbench-faults");
  mkdirSync(dir, { recursive: true });
  const log = path.join(dir, `${name}-${process.pid}-${Date.now()}.log`);
  writeFileSync(log, "");
  const fd = openSync(log, "a");
  const child = spawn(process.execPath, nodeProgram("worker"), {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: testDatabaseUrl(), REDIS_URL: testRedisUrl(), LOG_LEVEL: "info", ...fileRunnerEnv(), ...env },
    stdio: ["ignore", fd, fd],
    // Its own group, as a service manager would start it; k6 and the target's processes have their own groups.
    detached: true,
  });
  closeSync(fd);
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { child, pid: child.pid!, log, output: () => readFileSync(log, "utf8"), exited };
}

/** The restarted worker's first reconciler pass (it runs before the worker takes jobs): its duration and the runs it ended. */
export function startUpPass(w: WorkerProcess): { ms: number; failed: number } {
  const line = w
    .output()
    .split("\n")
    .find((l) => l.includes("start-up reconciliation done"));
  return JSON.parse(line!) as { ms: number; failed: number };
}

/** Kills the worker (never its children's groups: they are what a crash leaves behind). */
export async function killWorker(w: WorkerProcess, signal: NodeJS.Signals = "SIGKILL") {
  if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill(signal);
  return w.exited;
}

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 60_000,
  everyMs = 200,
  worker?: WorkerProcess,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (worker && worker.child.exitCode !== null)
      throw new Error(`the worker exited while waiting for ${what}:\n${worker.output().slice(-3000)}`);
    if (Date.now() > until)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${worker ? `\n${worker.output().slice(-3000)}` : ""}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Waits until the run's load is under way and has written `seconds` seconds of results. */
export function waitForLoad(db: Db, runId: string, seconds: number, worker: WorkerProcess) {
  return waitFor(
    `run ${runId} to write ${seconds} s of results`,
    async () => (await db.resultSecond.groupBy({ by: ["ts"], where: { runId } })).length >= seconds,
    90_000,
    200,
    worker,
  );
}

/** What a run recorded that it started: k6's group leader and the target's (load balancer, replicas). */
export async function recordedPids(db: Db, runId: string): Promise<{ k6: number | null; network: string | null; target: number[] }> {
  const steps = await db.runStep.findMany({ where: { runId } });
  const load = steps.find((s) => s.name === "LOAD")?.detail as { k6?: { pid?: number | null; network?: { ns: string } | null } } | null;
  const state = (steps.find((s) => s.name === "PROVISION")?.detail as { state?: Record<string, unknown> } | null)?.state as
    | { lb?: { pid: number }; replicas?: Array<{ pids: number[] }> }
    | undefined;
  return {
    k6: load?.k6?.pid ?? null,
    network: load?.k6?.network?.ns ?? null,
    target: [...(state?.lb ? [state.lb.pid] : []), ...(state?.replicas ?? []).flatMap((r) => r.pids)],
  };
}

/** Live processes whose command line or environment names the run (k6's work folder, a benchapp's OPSBENCH_RUN_ID). */
export function processesOfRun(runId: string): Array<{ pid: number; cmd: string }> {
  const found: Array<{ pid: number; cmd: string }> = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (/\) Z /.test(stat)) continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      let environ = "";
      try {
        environ = readFileSync(`/proc/${entry}/environ`, "utf8");
      } catch {
        /* not ours to read */
      }
      if (cmd.includes(runId) || environ.includes(`OPSBENCH_RUN_ID=${runId}`)) found.push({ pid: Number(entry), cmd: cmd.slice(0, 200) });
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

/** Whether the load network (namespace or nftables table) of that name exists on this machine. */
export function loadNetworkExists(name: string): boolean {
  const ns = spawnSync("ip", ["netns", "list"], { encoding: "utf8" }).stdout ?? "";
  const tables = spawnSync("nft", ["list", "tables", "inet"], { encoding: "utf8" }).stdout ?? "";
  return ns.split("\n").some((l) => l.split(" ")[0] === name) || tables.split("\n").some((l) => l.trim() === `table inet ${name}`);
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** How every scenario ends: every run and study final, no step still running, no orphan process, no row without its parent. */
export async function expectAllSettled(db: Db, runIds: string[]) {
  const unfinished = await db.run.findMany({ where: { status: { in: ["QUEUED", "PROVISIONING", "RUNNING", "ANALYZING"] } } });
  expect(unfinished.map((r) => `${r.id} ${r.status}`)).toEqual([]);
  expect(await db.study.count({ where: { status: { in: ["QUEUED", "RUNNING"] } } })).toBe(0);
  expect(await db.runStep.count({ where: { status: "RUNNING" } })).toBe(0);
  for (const runId of runIds) {
    const { k6, target } = await recordedPids(db, runId);
    const { network } = await recordedPids(db, runId);
    for (const pid of [...(k6 ? [k6] : []), ...target]) expect(pidAlive(pid), `recorded pid ${pid} of run ${runId}`).toBe(false);
    if (network) expect(loadNetworkExists(network), `load network ${network} of run ${runId}`).toBe(false);
    expect(processesOfRun(runId), `processes of run ${runId}`).toEqual([]);
  }
  const orphans = await db.$queryRawUnsafe<Array<{ n: number }>>(
    `SELECT (SELECT count(*) FROM run_steps s WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = s.run_id))
          + (SELECT count(*) FROM result_seconds s WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = s.run_id))
          + (SELECT count(*) FROM load_seconds s WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = s.run_id))
          + (SELECT count(*) FROM infra_points s WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = s.run_id))
          + (SELECT count(*) FROM run_events s WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = s.run_id))
          + (SELECT count(*) FROM runs r WHERE r.study_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM studies s WHERE s.id = r.study_id))
          AS n`,
  );
  expect(Number(orphans[0]!.n)).toBe(0);
}
