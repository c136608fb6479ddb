// local-service: a benchapp as N always-on local processes behind a round-robin
// load balancer, all on free loopback ports. The serverful kind that runs on
// one laptop (an autoscaler comes with the local engine work).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { localServiceSpec, type LocalServiceSpec } from "@opsbench/core";
import { ProviderError, type InfraPoint, type Provider, type ProviderContext } from "../provider";
import { CLOCK_TICKS_PER_SECOND, cpuTicks, freePort, isAlive, spawnGroup, stopGroup, type Spawned } from "./processes";

export interface LocalServiceState {
  lb?: { pid: number; port: number };
  replicas: Array<{ pid: number; port: number }>;
}

interface BenchappManifest {
  command: string[];
  healthPath: string;
  env?: Record<string, string>;
}

const LB_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), "load-balancer.mjs");

function readManifest(benchappsDir: string, app: string): { dir: string; manifest: BenchappManifest } {
  const dir = path.join(benchappsDir, app);
  const file = path.join(dir, "benchapp.json");
  if (!existsSync(file)) throw new ProviderError(`benchapp "${app}" has no benchapp.json in ${dir}`);
  return { dir, manifest: JSON.parse(readFileSync(file, "utf8")) as BenchappManifest };
}

async function waitHealthy(url: string, proc: Spawned, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const until = Date.now() + timeoutMs;
  let exit: { code: number | null; signal: string | null } | null = null;
  void proc.exited.then((e) => (exit = e));
  while (Date.now() < until) {
    if (signal.aborted) throw new ProviderError("aborted while waiting for the benchapp to start");
    if (exit) {
      const e = exit as { code: number | null; signal: string | null };
      throw new ProviderError(`benchapp exited during start-up (${e.signal ?? `code ${e.code}`}): ${proc.tail() || "no output"}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new ProviderError(`benchapp did not answer ${url} within ${timeoutMs} ms: ${proc.tail() || "no output"}`);
}

export const localService: Provider<LocalServiceSpec, LocalServiceState> = {
  kind: "local-service",
  spec: localServiceSpec,

  async deploy(spec, ctx) {
    const { dir, manifest } = readManifest(ctx.benchappsDir, spec.app);
    const state: LocalServiceState = { replicas: [] };
    try {
      const started: Spawned[] = [];
      for (let i = 0; i < spec.replicas; i++) {
        const port = await freePort();
        const proc = spawnGroup(manifest.command[0]!, manifest.command.slice(1), {
          cwd: dir,
          env: { ...manifest.env, ...spec.env, PORT: String(port), HOST: spec.env.HOST ?? "127.0.0.1", OPSBENCH_RUN_ID: ctx.runId },
        });
        state.replicas.push({ pid: proc.pid, port });
        started.push(proc);
        await ctx.saveState(state);
      }
      await Promise.all(
        started.map((proc, i) => waitHealthy(`http://127.0.0.1:${state.replicas[i]!.port}${manifest.healthPath}`, proc, spec.startTimeoutMs, ctx.signal)),
      );
      const lbPort = await freePort();
      const lb = spawnGroup(process.execPath, [LB_SCRIPT, String(lbPort), ...state.replicas.map((r) => String(r.port))], {
        cwd: dir,
        env: { OPSBENCH_RUN_ID: ctx.runId },
      });
      state.lb = { pid: lb.pid, port: lbPort };
      await ctx.saveState(state);
      await waitHealthy(`http://127.0.0.1:${lbPort}${manifest.healthPath}`, lb, 5000, ctx.signal);
      ctx.log("deployed", { replicas: spec.replicas, endpoint: `http://127.0.0.1:${lbPort}` });
      return { endpoint: `http://127.0.0.1:${lbPort}`, state };
    } catch (err) {
      // Nothing half-made survives a failed deploy.
      await localService.teardown({ state }, ctx);
      throw err;
    }
  },

  async reset(dep) {
    const dead = dep.state.replicas.filter((r) => !isAlive(r.pid));
    if (dead.length) throw new ProviderError(`${dead.length} replica(s) died before the load started`);
  },

  async *observe(dep, window) {
    const interval = window.intervalMs ?? 1000;
    let last = new Map(dep.state.replicas.map((r) => [r.pid, cpuTicks(r.pid)]));
    let lastAt = Date.now();
    while (!window.signal.aborted) {
      await new Promise((r) => setTimeout(r, interval));
      const now = Date.now();
      const seconds = (now - lastAt) / 1000;
      const perReplica = dep.state.replicas.map((r) => {
        const ticks = cpuTicks(r.pid);
        const before = last.get(r.pid);
        const cpu = ticks !== null && before != null ? (100 * (ticks - before)) / CLOCK_TICKS_PER_SECOND / seconds : null;
        return { pid: r.pid, ticks, cpuPercent: cpu === null ? null : Math.round(cpu * 10) / 10 };
      });
      last = new Map(perReplica.map((r) => [r.pid, r.ticks]));
      lastAt = now;
      const alive = perReplica.filter((r) => r.ticks !== null);
      const cpus = alive.map((r) => r.cpuPercent).filter((c): c is number => c !== null);
      yield {
        ts: new Date(now),
        replicas: alive.length,
        cpuPercent: cpus.length ? Math.round((cpus.reduce((a, b) => a + b, 0) / cpus.length) * 10) / 10 : null,
        detail: { perReplicaCpu: perReplica.map((r) => r.cpuPercent) },
      } satisfies InfraPoint;
    }
  },

  async teardown(dep, ctx: ProviderContext) {
    const state = dep.state as Partial<LocalServiceState>;
    const pids = [...(state.lb ? [state.lb.pid] : []), ...(state.replicas ?? []).map((r) => r.pid)];
    await Promise.all(pids.map((pid) => stopGroup(pid)));
    const survivors = pids.filter(isAlive);
    if (survivors.length) throw new ProviderError(`processes still running after teardown: ${survivors.join(", ")}`);
    ctx.log("torn down", { processes: pids.length });
  },
};
