// local-service: a benchapp as always-on local replicas behind a load
// balancer, like a Kubernetes Deployment + HPA or an Auto Scaling Group: min
// and max replicas, an optional CPU autoscaler with the HPA's rule, readiness
// before a replica takes load, per-replica limits with cgroups where the OS
// allows, and a placement for multi-service apps (docs/local-engine.md).
import { undoFailedDeploy } from "../local/undo-failed-deploy";
import { benchappChecks } from "../local/app-checks";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { localServiceSpec, serviceSettings } from "@opsbench/core";
import { ProviderError, type Deployment, type InfraPoint, type KindProvider, type ProviderContext } from "../provider";
import { createAppDatabase, dropAppDatabase, newAppDatabase } from "../local/app-database";
import { adminCall, waitHealthy } from "../local/http";
import { planDomains, readManifest } from "../local/manifest";
import { CpuMeter, createNetwork, freePort, groupAlive, removeNetwork, sleep, spawnGroup, stopGroup } from "@opsbench/host";
import { stopReplica, type ReplicaPlan } from "../local/replica";
import { controllers, ServiceController, type LocalServiceState } from "./controller";

export type { LocalServiceState } from "./controller";

const LB_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), "load-balancer.mjs");

const round1 = (n: number) => Math.round(n * 10) / 10;

export const localService: KindProvider<"local-service", LocalServiceState> = {
  kind: "local-service",
  spec: localServiceSpec,

  async deploy(spec, ctx) {
    const settings = serviceSettings(spec);
    const app = readManifest(ctx.benchappsDir, spec.app);
    const domains = planDomains(app, settings.placement);
    const state: LocalServiceState = { id: randomBytes(3).toString("hex"), replicas: [] };
    let controller: ServiceController | null = null;
    try {
      if (settings.network === "namespaces") {
        try {
          state.network = await createNetwork();
        } catch (err) {
          state.networkNotUsed = (err as Error).message;
          ctx.log("network namespaces not available; running on loopback", { reason: state.networkNotUsed });
          await ctx.event?.("warn", `network namespaces could not be used, so every process runs on loopback: ${state.networkNotUsed}`);
        }
        await ctx.saveState(state);
      }
      let env = spec.env;
      if (spec.database) {
        // Recorded before it is made, so a teardown after a crash drops it too.
        state.database = newAppDatabase();
        await ctx.saveState(state);
        env = { ...env, [spec.database.urlEnv]: await createAppDatabase(ctx.appDatabaseUrl, state.database) };
      }
      const plan: ReplicaPlan = {
        app,
        domains,
        placement: settings.placement,
        env,
        limits: { cpuLimit: settings.resources.cpuLimit, memoryLimitMb: settings.resources.memoryLimitMb },
        network: state.network ?? null,
        runId: ctx.runId,
        deploymentId: state.id,
        startTimeoutMs: spec.startTimeoutMs,
      };
      controller = new ServiceController(state, settings, plan, ctx);
      controllers.set(state.id, controller);
      await controller.startInitial();

      const initial = controller
        .snapshot()
        .ready.flatMap((r) => r.endpoints.map((e, k) => ({ id: `r${r.id}.${k}`, host: e.host, port: e.port })));
      const healthPath = app.manifest.services ? app.manifest.services[app.manifest.entry!]!.healthPath : app.manifest.healthPath!;
      // A free port may be taken by another process before the balancer listens on it: then again, on new ports.
      for (let attempt = 1; ; attempt++) {
        const [lbPort, adminPort] = [await freePort(), await freePort()];
        const lb = spawnGroup(
          process.execPath,
          [LB_SCRIPT, JSON.stringify({ port: lbPort, adminPort, mode: settings.balancing, backends: initial })],
          {
            cwd: app.dir,
            env: { OPSBENCH_RUN_ID: ctx.runId },
          },
        );
        state.lb = { pid: lb.pid, startTicks: lb.startTicks, port: lbPort, adminPort };
        state.endpoint = `http://127.0.0.1:${lbPort}`;
        await controller.persist();
        try {
          await waitHealthy(`${state.endpoint}${healthPath}`, lb, 5000, ctx.signal, "load balancer");
          break;
        } catch (err) {
          if (attempt >= 3 || !lb.exit() || !/EADDRINUSE/.test(lb.tail())) throw err;
        }
      }
      await controller.attachLoadBalancer();
      controller.startAutoscaler();
      ctx.log("deployed", {
        replicas: settings.minReplicas,
        maxReplicas: settings.maxReplicas,
        endpoint: state.endpoint,
        placement: settings.placement,
        processesPerReplica: domains.length,
      });
      return { endpoint: state.endpoint, state };
    } catch (err) {
      return undoFailedDeploy(localService, state, ctx, err);
    }
  },

  async reset(dep, ctx) {
    const controller = controllers.get(dep.state.id);
    if (!controller) {
      // Another process made this deployment: all we can do is check it is whole.
      const dead = dep.state.replicas.filter((r) => !r.pids.every((pid, i) => groupAlive(pid, r.starts?.[i])));
      if (dead.length) throw new ProviderError(`${dead.length} replica(s) died before the load started`);
      return;
    }
    const timeoutMs = controller.plan.startTimeoutMs + 15_000;
    await controller.resetToMin(timeoutMs, ctx.signal);
    ctx.log("reset", { replicas: controller.settings.minReplicas });
  },

  async *observe(dep, window) {
    const interval = window.intervalMs ?? 1000;
    const meter = new CpuMeter("group", true);
    const controller = controllers.get(dep.state.id);
    const target = controller?.settings.autoscaler?.targetCpuPercent ?? null;
    const request = controller?.settings.resources.cpuRequest ?? 1;
    const groups = () => {
      const ready = controller ? controller.snapshot().ready : dep.state.replicas;
      return new Map(ready.map((r) => [String(r.id), r.pids]));
    };
    meter.sample(groups());
    let seenEvents = 0;
    let lastLb: { requests: number; errors: number } | null = null;
    while (!window.signal.aborted) {
      await sleep(interval);
      const now = Date.now();
      const snap = controller?.snapshot() ?? null;
      const cpu = meter.sample(groups(), now);
      const perReplica = [...cpu.entries()].map(([id, pct]) => ({ id: Number(id), cpu: pct === null ? null : round1(pct) }));
      const known = perReplica.map((r) => r.cpu).filter((c): c is number => c !== null);
      const avg = known.length ? round1(known.reduce((a, b) => a + b, 0) / known.length) : null;
      const lb = dep.state.lb
        ? await adminCall<{ requests: number; errors: number }>(`http://127.0.0.1:${dep.state.lb.adminPort}/stats`).catch(() => null)
        : null;
      const events = snap ? snap.scalingEvents.slice(seenEvents) : [];
      if (snap) seenEvents = snap.scalingEvents.length;
      yield {
        ts: new Date(now),
        replicas: snap
          ? snap.ready.length
          : dep.state.replicas.filter((r) => r.pids.some((pid, i) => groupAlive(pid, r.starts?.[i]))).length,
        cpuPercent: avg,
        detail: {
          kind: "local-service",
          desired: snap?.desired ?? null,
          starting: snap?.starting ?? 0,
          stopping: snap?.stopping ?? 0,
          perReplicaCpu: perReplica.map((r) => r.cpu),
          replicaIds: perReplica.map((r) => r.id),
          utilizationPercent: avg === null ? null : round1(avg / request),
          targetCpuPercent: target,
          ...(snap?.lastDecision
            ? {
                lastDecision: {
                  reason: snap.lastDecision.reason,
                  recommendation: snap.lastDecision.recommendation,
                  desired: snap.lastDecision.desired,
                  at: new Date(snap.lastDecision.at).toISOString(),
                },
              }
            : {}),
          scalingEvents: events.map((e) => ({ ...e, at: new Date(e.at).toISOString() })),
          restarts: snap?.restarts ?? 0,
          ...(lb && lastLb ? { lbRequests: lb.requests - lastLb.requests, lbErrors: lb.errors - lastLb.errors } : {}),
          pids: (snap?.ready ?? dep.state.replicas).flatMap((r) => r.pids),
        },
      } satisfies InfraPoint;
      if (lb) lastLb = lb;
    }
  },

  appChecks: (spec, dep, ctx) => benchappChecks(spec.app, dep, ctx),

  async teardown(dep, ctx: ProviderContext) {
    const state = dep.state as Partial<LocalServiceState>;
    const controller = state.id ? controllers.get(state.id) : undefined;
    if (controller) await controller.stop();
    // Everything either side knows of: the saved state and the live controller.
    const records = new Map((state.replicas ?? []).map((r) => [r.id, r]));
    for (const r of controller?.records() ?? []) records.set(r.id, r);
    if (state.lb) await stopGroup(state.lb.pid, 5000, state.lb.startTicks);
    const problems: string[] = [];
    await Promise.all(
      // (States saved before multi-process replicas have only `pid`.)
      [...records.values()].map((r) =>
        stopReplica({ ...r, pids: r.pids ?? (r.pid ? [r.pid] : []), cgroups: r.cgroups ?? [], namespaces: r.namespaces ?? [] }).catch(
          (e: Error) => problems.push(e.message),
        ),
      ),
    );
    if (state.network) problems.push(...(await removeNetwork(state.network)));
    // After the processes: dropping the database closes what connections are left.
    if (state.database) await dropAppDatabase(ctx.appDatabaseUrl, state.database).catch((e: Error) => problems.push(e.message));
    // Each pid with its start time: a pid reused by another process since is neither signalled nor counted.
    const owned = [
      ...(state.lb ? [{ pid: state.lb.pid, start: state.lb.startTicks }] : []),
      ...[...records.values()].flatMap((r) => (r.pids ?? (r.pid ? [r.pid] : [])).map((pid, i) => ({ pid, start: r.starts?.[i] }))),
    ];
    const pids = owned.map((o) => o.pid);
    const survivors = owned.filter((o) => groupAlive(o.pid, o.start)).map((o) => o.pid);
    if (state.id) controllers.delete(state.id);
    if (survivors.length) problems.unshift(`processes still running after teardown: ${survivors.join(", ")}`);
    if (problems.length) throw new ProviderError(problems.join("; "));
    ctx.log("torn down", { processes: pids.length });
  },
};

export type LocalServiceDeployment = Deployment<LocalServiceState>;
