// local-function: a benchapp as a serverless function, like Cloud Run, Lambda
// or OpenWhisk: a front proxy (function-proxy.mjs, its own process) starts
// instances on demand, limits each to `concurrency` requests, queues with a
// timeout at maxInstances, stops idle instances (scale to zero), times every
// cold start and bills every request as the chosen platform rounds.
import { undoFailedDeploy } from "../local/undo-failed-deploy";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { functionSettings, localFunctionSpec } from "@opsbench/core";
import { ProviderError, type InfraPoint, type KindProvider, type ProviderContext } from "../provider";
import {
  CpuMeter,
  createCgroup,
  freePort,
  groupAlive,
  isAlive,
  ownsGroup,
  removeCgroups,
  sleep,
  spawnGroup,
  stopGroup,
  wantsLimits,
} from "@opsbench/host";
import { adminCall, request } from "../local/http";
import { benchappChecks } from "../local/app-checks";
import { readManifest } from "../local/manifest";

export interface LocalFunctionState {
  id: string;
  endpoint?: string;
  /** The proxy's process group leader (its instances are in the group), with its start time (ticks after boot) when known. */
  proxy?: { pid: number; startTicks?: number | null; port: number; adminPort: number };
  /** One cgroup per possible instance, when limits are asked for and enforceable. */
  cgroups: string[];
  limits?: { enforced: boolean; mechanism: string | null; reason?: string; cpuLimit: number | null; memoryLimitMb: number | null };
  /** Instance pids seen while it ran (they die with the proxy's process group). */
  instancePids?: number[];
  settings?: ReturnType<typeof functionSettings>;
}

/** What the proxy's GET /stats answers (function-proxy.mjs). */
export interface FunctionProxyStats {
  instances: number;
  ready: number;
  starting: number;
  stopping: number;
  inFlight: number;
  queued: number;
  requests: number;
  responses: number;
  coldStarts: number;
  prewarmStarts: number;
  startFailures: number;
  crashes: number;
  stoppedIdle: number;
  queuedTotal: number;
  queueTimeouts: number;
  queueRejected: number;
  queueWaitMsTotal: number;
  queueWaitMsMax: number;
  queuePeak: number;
  billedRequestMs: number;
  billedInstanceMs: number;
  durationMs: number;
  errors: number;
  /** Requests whose client left while they waited (queue or cold start). */
  abandoned: number;
  /** Instances started without their cgroup (should stay 0). */
  unlimitedStarts: number;
  coldStartLog: Array<{ seq: number; ms: number; at: string }>;
  lastStartError: string | null;
  perInstance: Array<{ id: number; pid: number | null; state: string; inFlight: number; served: number }>;
  pids: number[];
}

const PROXY_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), "function-proxy.mjs");
const round1 = (n: number) => Math.round(n * 10) / 10;

export function proxyStats(state: LocalFunctionState, resetPeak = false): Promise<FunctionProxyStats> {
  if (!state.proxy) throw new ProviderError("the function proxy is not running");
  return adminCall<FunctionProxyStats>(`http://127.0.0.1:${state.proxy.adminPort}/stats${resetPeak ? "?resetPeak=1" : ""}`);
}

function rememberPids(state: LocalFunctionState, stats: FunctionProxyStats) {
  const known = new Set(state.instancePids ?? []);
  for (const p of stats.pids) known.add(p);
  state.instancePids = [...known].slice(-1000);
}

export const localFunction: KindProvider<"local-function", LocalFunctionState> = {
  kind: "local-function",
  spec: localFunctionSpec,

  async deploy(spec, ctx) {
    const settings = functionSettings(spec);
    const app = readManifest(ctx.benchappsDir, spec.app);
    if (app.multiService)
      throw new ProviderError(
        `local-function runs single-service benchapps; "${spec.app}" lists services (deploy it as a local-service with a placement)`,
      );
    const state: LocalFunctionState = { id: randomBytes(3).toString("hex"), cgroups: [], settings };
    try {
      const limits = { cpuLimit: settings.resources.cpuLimit, memoryLimitMb: settings.resources.memoryLimitMb };
      const slots: string[][] = [];
      if (wantsLimits(limits)) {
        for (let k = 0; k < settings.maxInstances; k++) {
          const outcome = createCgroup(`${state.id}-i${k}`, limits);
          state.cgroups.push(...outcome.paths);
          slots.push(outcome.paths);
          if (!outcome.enforced) {
            state.limits = { enforced: false, mechanism: null, reason: outcome.reason, ...limits };
            await removeCgroups(state.cgroups);
            state.cgroups = [];
            slots.length = 0;
            break;
          }
          state.limits = { enforced: true, mechanism: outcome.mechanism, ...limits };
        }
        await ctx.saveState(state);
        if (state.limits?.enforced) await ctx.event?.("info", `per-instance limits enforced with ${state.limits.mechanism}`, { ...limits });
        else await ctx.event?.("warn", `per-instance CPU/memory limits are NOT enforced: ${state.limits?.reason}`, { ...limits });
      }
      // A free port may be taken by another process before the proxy listens on it: then again, on new ports.
      for (let attempt = 1; ; attempt++) {
        const [port, adminPort] = [await freePort(), await freePort()];
        const config = {
          port,
          adminPort,
          command: app.manifest.command!,
          cwd: app.dir,
          healthPath: app.manifest.healthPath!,
          env: { ...app.manifest.env, ...spec.env, OPSBENCH_RUN_ID: ctx.runId },
          concurrency: settings.concurrency,
          minInstances: settings.minInstances,
          maxInstances: settings.maxInstances,
          idleTimeoutMs: settings.idleTimeoutMs,
          queueTimeoutMs: settings.queueTimeoutMs,
          maxQueue: settings.maxQueue,
          startTimeoutMs: settings.startTimeoutMs,
          billing: settings.billing,
          cgroupSlots: slots,
        };
        const proxy = spawnGroup(process.execPath, [PROXY_SCRIPT, JSON.stringify(config)], {
          cwd: app.dir,
          env: { OPSBENCH_RUN_ID: ctx.runId },
        });
        state.proxy = { pid: proxy.pid, startTicks: proxy.startTicks, port, adminPort };
        state.endpoint = `http://127.0.0.1:${port}`;
        await ctx.saveState(state);
        const started = await proxyStarted(proxy, state);
        if (started === true) break;
        if (attempt < 3 && /EADDRINUSE/.test(started)) continue;
        throw new ProviderError(started);
      }
      // Like a platform checking a new revision: one instance must start and answer, then it is retired.
      const probe = await request(`${state.endpoint}${app.manifest.healthPath}`, { timeoutMs: settings.startTimeoutMs + 2000 }).catch(
        (err: Error) => ({ status: 0, body: err.message }),
      );
      if (probe.status < 200 || probe.status > 299) {
        const s = await proxyStats(state).catch(() => null);
        throw new ProviderError(`benchapp did not start as a function: ${s?.lastStartError ?? `${probe.status} ${probe.body}`}`);
      }
      const after = await adminCall<FunctionProxyStats>(`http://127.0.0.1:${state.proxy!.adminPort}/retire-idle`, "POST");
      rememberPids(state, after);
      await ctx.saveState(state);
      ctx.log("deployed", {
        endpoint: state.endpoint,
        platform: settings.platform,
        concurrency: settings.concurrency,
        maxInstances: settings.maxInstances,
      });
      return { endpoint: state.endpoint, state };
    } catch (err) {
      return undoFailedDeploy(localFunction, state, ctx, err);
    }
  },

  /** Waits for scale to zero (or to minInstances): the cold baseline. Throws if it does not come in time. */
  async reset(dep, ctx) {
    const settings = dep.state.settings;
    if (!settings) throw new ProviderError("this local-function deployment has no recorded settings; deploy it again");
    // Idle timeout, then the proxy's reaper tick and the instance's SIGTERM grace (up to 3 s);
    // with warm instances, also the time to start them.
    const timeoutMs = settings.idleTimeoutMs + 3000 + (settings.minInstances > 0 ? settings.startTimeoutMs : 0);
    const until = Date.now() + timeoutMs;
    let s: FunctionProxyStats | null = null;
    for (;;) {
      if (dep.state.proxy && !(isAlive(dep.state.proxy.pid) && ownsGroup(dep.state.proxy.pid, dep.state.proxy.startTicks)))
        throw new ProviderError("the function proxy is not running");
      s = await proxyStats(dep.state).catch(() => null);
      if (
        s &&
        s.instances === settings.minInstances &&
        s.ready === settings.minInstances &&
        s.stopping === 0 &&
        s.queued === 0 &&
        s.inFlight === 0
      )
        break;
      if (Date.now() > until || ctx.signal.aborted) {
        throw new ProviderError(
          `local-function did not scale ${settings.minInstances ? `to its ${settings.minInstances} minimum instance(s)` : "to zero"} within ${timeoutMs} ms` +
            (s
              ? ` (${s.instances} instance(s) live, ${s.inFlight} request(s) in flight, ${s.queued} queued)`
              : " (no answer from the proxy)"),
        );
      }
      await sleep(200);
    }
    ctx.log("reset", { instances: s.instances });
  },

  async *observe(dep, window) {
    const interval = window.intervalMs ?? 1000;
    const meter = new CpuMeter("pid", true);
    let prev = await proxyStats(dep.state, true).catch(() => null);
    let lastSeq = prev?.coldStartLog.at(-1)?.seq ?? 0;
    const mode = dep.state.settings?.billing.mode ?? "per-request";
    while (!window.signal.aborted) {
      await sleep(interval);
      const s = await proxyStats(dep.state, true).catch(() => null);
      if (!s) continue;
      rememberPids(dep.state, s);
      const readyPids = s.perInstance.filter((i) => i.state === "ready" && i.pid).map((i) => i.pid!);
      const cpu = meter.sample(new Map(readyPids.map((pid) => [String(pid), [pid]])));
      const perInstanceCpu = readyPids.map((pid) => cpu.get(String(pid)) ?? null).map((v) => (v === null ? null : round1(v)));
      const known = perInstanceCpu.filter((v): v is number => v !== null);
      const fresh = s.coldStartLog.filter((e) => e.seq > lastSeq);
      lastSeq = s.coldStartLog.at(-1)?.seq ?? lastSeq;
      const d = (k: keyof FunctionProxyStats) => (s[k] as number) - ((prev?.[k] as number | undefined) ?? 0);
      const queuedNow = d("queuedTotal");
      const waitMs = d("queueWaitMsTotal");
      const billedRequestMs = d("billedRequestMs");
      const billedInstanceMs = d("billedInstanceMs");
      yield {
        ts: new Date(),
        replicas: s.instances,
        cpuPercent: known.length ? round1(known.reduce((a, b) => a + b, 0) / known.length) : null,
        detail: {
          kind: "local-function",
          ready: s.ready,
          starting: s.starting,
          inFlight: s.inFlight,
          queued: s.queued,
          queuedPeak: s.queuePeak,
          queuedNew: queuedNow,
          queueTimeouts: d("queueTimeouts"),
          rejected: d("queueRejected"),
          abandoned: d("abandoned"),
          queueWaitMsAvg: queuedNow > 0 ? round1(waitMs / queuedNow) : null,
          coldStarts: fresh.length,
          coldStartMs: fresh.map((e) => e.ms),
          requests: d("requests"),
          billedMs: mode === "per-instance" ? billedInstanceMs : billedRequestMs,
          billedRequestMs,
          billedInstanceMs,
          durationMs: round1(d("durationMs")),
          startFailures: d("startFailures"),
          crashes: d("crashes"),
          stoppedIdle: d("stoppedIdle"),
          perInstanceCpu,
          totals: {
            coldStarts: s.coldStarts,
            requests: s.requests,
            billedMs: mode === "per-instance" ? s.billedInstanceMs : s.billedRequestMs,
            queueTimeouts: s.queueTimeouts,
          },
          pids: s.pids,
        },
      } satisfies InfraPoint;
      prev = s;
    }
  },

  appChecks: (spec, dep, ctx) => benchappChecks(spec.app, dep, ctx),

  async teardown(dep, ctx: ProviderContext) {
    const state = dep.state as Partial<LocalFunctionState>;
    if (state.proxy) {
      const last = await proxyStats(state as LocalFunctionState).catch(() => null);
      if (last) rememberPids(state as LocalFunctionState, last);
      await stopGroup(state.proxy.pid, 5000, state.proxy.startTicks);
    }
    // Instances live in the proxy's process group, so stopping the group stopped them.
    // (Old instance pids are only reported, never signalled: they may belong to someone else by now.)
    const pids = [...(state.proxy ? [state.proxy.pid] : []), ...(state.instancePids ?? [])];
    const survivors = state.proxy && groupAlive(state.proxy.pid, state.proxy.startTicks) ? [state.proxy.pid] : [];
    const left = await removeCgroups(state.cgroups ?? []);
    const problems = [
      ...(survivors.length ? [`processes still running after teardown: ${survivors.join(", ")}`] : []),
      ...(left.length ? [`could not remove cgroups: ${left.join(", ")}`] : []),
    ];
    if (problems.length) throw new ProviderError(problems.join("; "));
    ctx.log("torn down", { processes: pids.length });
  },
};

/** Waits up to 5 s for the function proxy to answer: true, or why it did not start. */
async function proxyStarted(proxy: ReturnType<typeof spawnGroup>, state: Parameters<typeof proxyStats>[0]): Promise<true | string> {
  const until = Date.now() + 5000;
  for (;;) {
    const exit = proxy.exit();
    if (exit) return `the function proxy exited during start-up (${exit.signal ?? `code ${exit.code}`}): ${proxy.tail() || "no output"}`;
    if (
      await proxyStats(state).then(
        () => true,
        () => false,
      )
    )
      return true;
    if (Date.now() > until) return `the function proxy did not start within 5000 ms: ${proxy.tail() || "no output"}`;
    await sleep(50);
  }
}
