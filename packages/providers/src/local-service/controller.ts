// The replica controller of a local-service, in the worker: like a ReplicaSet
// plus an HPA. It keeps `desired` replicas running (replacing any that die),
// adds a replica to the load balancer only once it answers its health check,
// takes it out before stopping it, and every sync period asks the HPA rule
// (@opsbench/core autoscaler) for a new desired count.
import type { AppDatabaseRecord } from "../local/app-database";
import { HpaAutoscaler, type AutoscalerDecision, type ServiceSettings } from "@opsbench/core";
import { ProviderError, type ProviderContext } from "../provider";
import { adminCall, request } from "../local/http";
import { type CgroupOutcome, CpuMeter, type NetworkState, sleep } from "@opsbench/host";
import { startReplica, stopReplica, type ReplicaPlan, type ReplicaRecord } from "../local/replica";

export interface LocalServiceState {
  /** Deployment id: names its cgroups and namespaces, and finds its controller. */
  id: string;
  endpoint?: string;
  /** The load balancer's process group leader, with its start time (ticks after boot) when known. */
  lb?: { pid: number; startTicks?: number | null; port: number; adminPort: number };
  /** Every replica that may have processes: starting, ready or stopping. */
  replicas: ReplicaRecord[];
  /** Set when each process runs in its own network namespace. */
  network?: NetworkState;
  /** Why namespaces were asked for but not used. */
  networkNotUsed?: string;
  /** The deployment's own database and role (the spec's `database`), dropped at teardown. */
  database?: AppDatabaseRecord;
  /** Per-replica limits: whether they are enforced, and how or why not. */
  limits?: { enforced: boolean; mechanism: string | null; reason?: string; cpuLimit: number | null; memoryLimitMb: number | null };
}

type Phase = "starting" | "ready" | "stopping";

interface Live {
  record: ReplicaRecord;
  phase: Phase;
  readyAt?: number;
}

export interface ScalingEvent {
  at: number;
  from: number;
  to: number;
  /** The ready replicas' average CPU, in % of their request, that the decision saw (null: no metrics). */
  averageCpuPercent: number | null;
  reason: string;
}

export interface ControllerSnapshot {
  desired: number;
  ready: ReplicaRecord[];
  starting: number;
  stopping: number;
  lastDecision: (AutoscalerDecision & { at: number }) | null;
  scalingEvents: ScalingEvent[];
  restarts: number;
}

/** Controllers of the deployments this process made, by deployment id. */
export const controllers = new Map<string, ServiceController>();

const DRAIN_MS = 10_000;

export class ServiceController {
  private live = new Map<number, Live>();
  private desired: number;
  private nextId = 0;
  private autoscaler: HpaAutoscaler | null;
  private meter = new CpuMeter();
  private timer: NodeJS.Timeout | null = null;
  private reconciling: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private saving: Promise<void> = Promise.resolve();
  private lastDecision: ControllerSnapshot["lastDecision"] = null;
  private events: ScalingEvent[] = [];
  private restarts = 0;
  private lastFailure: string | null = null;

  constructor(
    readonly state: LocalServiceState,
    readonly settings: ServiceSettings,
    readonly plan: ReplicaPlan,
    private readonly ctx: ProviderContext,
  ) {
    this.desired = settings.minReplicas;
    const a = settings.autoscaler;
    this.autoscaler = a
      ? new HpaAutoscaler({
          targetCpuPercent: a.targetCpuPercent,
          tolerance: a.tolerance,
          minReplicas: settings.minReplicas,
          maxReplicas: settings.maxReplicas,
          scaleUpStabilizationMs: a.scaleUpStabilizationMs,
          scaleDownStabilizationMs: a.scaleDownStabilizationMs,
        })
      : null;
  }

  /** Saves the state, in order (a later snapshot never lands before an earlier one). */
  persist(): Promise<void> {
    const snapshot = structuredClone(this.state);
    this.saving = this.saving.then(() => this.ctx.saveState(snapshot)).catch(() => {});
    return this.saving;
  }

  private event(level: "info" | "warn", message: string, data?: Record<string, unknown>) {
    this.ctx.log(message, data);
    void this.ctx.event?.(level, message, data).catch(() => {});
  }

  /** Starts the first `minReplicas` replicas; throws (with the app's reason) if one cannot start. */
  async startInitial(): Promise<void> {
    // A failed deploy keeps the failed replicas' records (stopped already), so the run shows what was tried.
    const results = await Promise.allSettled(Array.from({ length: this.desired }, () => this.startOne(true)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  }

  private async startOne(keepRecordOnFailure = false): Promise<void> {
    const id = this.nextId++;
    const entry: Live = { record: { id, pids: [], starts: [], endpoints: [], cgroups: [], namespaces: [] }, phase: "starting" };
    this.live.set(id, entry);
    this.state.replicas.push(entry.record);
    try {
      const started = await startReplica(this.plan, id, this.ctx.signal, async (r) => {
        entry.record = r;
        this.state.replicas = this.state.replicas.map((x) => (x.id === id ? r : x));
        await this.persist();
      });
      entry.record = started.record;
      this.noteLimits(started.limits);
      if (this.stopped) return;
      entry.phase = "ready";
      entry.readyAt = Date.now();
      for (const p of started.procs) void p.exited.then((e) => this.onExit(id, e));
      await this.syncBackends();
    } catch (err) {
      this.live.delete(id);
      if (!keepRecordOnFailure) this.state.replicas = this.state.replicas.filter((x) => x.id !== id);
      await this.persist();
      throw err;
    }
  }

  private noteLimits(outcome: CgroupOutcome | null) {
    if (!outcome || this.state.limits) return;
    this.state.limits = {
      enforced: outcome.enforced,
      mechanism: outcome.mechanism,
      cpuLimit: outcome.limits.cpuLimit,
      memoryLimitMb: outcome.limits.memoryLimitMb,
      ...(outcome.reason ? { reason: outcome.reason } : {}),
    };
    void this.persist();
    if (outcome.enforced) this.event("info", `per-replica limits enforced with ${outcome.mechanism}`, { ...outcome.limits });
    else this.event("warn", `per-replica CPU/memory limits are NOT enforced: ${outcome.reason}`, { ...outcome.limits });
  }

  private onExit(id: number, e: { code: number | null; signal: string | null }) {
    const entry = this.live.get(id);
    if (entry?.phase !== "ready" || this.stopped) return;
    // A replica died on its own: out of the balancer, cleaned up, replaced (as a ReplicaSet does).
    this.restarts++;
    entry.phase = "stopping";
    this.event("warn", `replica r${id} exited unexpectedly (${e.signal ?? `code ${e.code}`}); replacing it`);
    void (async () => {
      await this.syncBackends().catch(() => {});
      await stopReplica(entry.record, 1000).catch(() => {});
      this.live.delete(id);
      this.state.replicas = this.state.replicas.filter((x) => x.id !== id);
      await this.persist();
      this.reconcile();
    })();
  }

  /** Tells the load balancer which replicas are ready. */
  private async syncBackends(): Promise<void> {
    if (!this.state.lb || this.stopped) return;
    const backends = [...this.live.values()]
      .filter((l) => l.phase === "ready")
      .flatMap((l) => l.record.endpoints.map((e, k) => ({ id: `r${l.record.id}.${k}`, host: e.host, port: e.port })));
    await adminCall(`http://127.0.0.1:${this.state.lb.adminPort}/backends`, "PUT", { backends });
  }

  /** Attaches the load balancer once it runs; from then on backends follow the ready replicas. */
  async attachLoadBalancer(): Promise<void> {
    await this.syncBackends();
  }

  /** Sets the desired count and converges to it in the background. */
  scaleTo(n: number): void {
    this.desired = Math.min(this.settings.maxReplicas, Math.max(this.settings.minReplicas, n));
    this.reconcile();
  }

  private reconcile(): void {
    if (this.stopped) return;
    if (this.reconciling) {
      this.again = true;
      return;
    }
    this.reconciling = (async () => {
      do {
        this.again = false;
        await this.reconcileOnce().catch((err) => {
          this.lastFailure = (err as Error).message;
          this.event("warn", `could not reach ${this.desired} replicas: ${(err as Error).message}`);
        });
      } while (this.again && !this.stopped);
    })().finally(() => (this.reconciling = null));
  }

  private async reconcileOnce(): Promise<void> {
    const active = [...this.live.values()].filter((l) => l.phase !== "stopping");
    if (active.length < this.desired) {
      const results = await Promise.allSettled(Array.from({ length: this.desired - active.length }, () => this.startOne()));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed) {
        await sleep(1000); // back off before the next attempt
        this.again = true;
        throw failed.reason;
      }
    } else if (active.length > this.desired) {
      // Remove replicas not yet ready first, then the newest (as a ReplicaSet picks pods to delete).
      const victims = active
        .sort((a, b) => (a.phase === b.phase ? b.record.id - a.record.id : a.phase === "starting" ? -1 : 1))
        .slice(0, active.length - this.desired)
        .filter((v) => v.phase === "ready");
      if (victims.length === 0) return;
      for (const v of victims) v.phase = "stopping";
      await this.syncBackends();
      await this.drain(victims.map((v) => v.record.id));
      await Promise.all(
        victims.map(async (v) => {
          await stopReplica(v.record);
          this.live.delete(v.record.id);
          this.state.replicas = this.state.replicas.filter((x) => x.id !== v.record.id);
        }),
      );
      await this.persist();
    }
  }

  /** Waits until the balancer has no request in flight to these replicas (per-request mode only). */
  private async drain(ids: number[]): Promise<void> {
    if (!this.state.lb || this.settings.balancing !== "per-request") return;
    const prefixes = ids.map((id) => `r${id}.`);
    const until = Date.now() + DRAIN_MS;
    while (Date.now() < until && !this.stopped) {
      const stats = await adminCall<{ draining?: Array<{ id: string }> }>(`http://127.0.0.1:${this.state.lb.adminPort}/stats`).catch(
        () => null,
      );
      if (!stats || !(stats.draining ?? []).some((d) => prefixes.some((p) => d.id.startsWith(p)))) return;
      await sleep(50);
    }
  }

  /** Starts the autoscaler's sync loop (no-op without an autoscaler). */
  startAutoscaler(): void {
    if (!this.autoscaler || this.timer || this.stopped) return;
    this.meter.sample(this.cpuGroups()); // the first period's baseline
    this.timer = setInterval(() => this.sync(), this.settings.autoscaler!.syncPeriodMs);
    this.timer.unref?.();
  }

  private cpuGroups(): Map<string, number[]> {
    return new Map([...this.live.values()].filter((l) => l.phase === "ready").map((l) => [String(l.record.id), l.record.pids]));
  }

  private sync(): void {
    if (this.stopped || !this.autoscaler) return;
    const now = Date.now();
    const cpu = this.meter.sample(this.cpuGroups(), now);
    const request = this.settings.resources.cpuRequest;
    const readyCpuPercent: number[] = [];
    let unready = [...this.live.values()].filter((l) => l.phase === "starting").length;
    for (const [, pct] of cpu) {
      if (pct === null)
        unready++; // ready for less than one period: no metric yet
      else readyCpuPercent.push(pct / request);
    }
    const decision = this.autoscaler.decide(this.desired, { readyCpuPercent, unready }, now);
    this.lastDecision = { ...decision, at: now };
    if (decision.desired !== this.desired) {
      const avg = decision.averageCpuPercent === null ? "?" : decision.averageCpuPercent.toFixed(0);
      const ev: ScalingEvent = {
        at: now,
        from: this.desired,
        to: decision.desired,
        averageCpuPercent: decision.averageCpuPercent,
        reason: `CPU ${avg}% of request, target ${this.settings.autoscaler!.targetCpuPercent}%`,
      };
      this.events.push(ev);
      if (this.events.length > 100) this.events.shift();
      this.event("info", `autoscaler: ${ev.from} -> ${ev.to} replicas (${ev.reason})`, { ...ev });
      this.scaleTo(decision.desired);
    }
  }

  snapshot(): ControllerSnapshot {
    const all = [...this.live.values()];
    return {
      desired: this.desired,
      ready: all
        .filter((l) => l.phase === "ready")
        .map((l) => l.record)
        .sort((a, b) => a.id - b.id),
      starting: all.filter((l) => l.phase === "starting").length,
      stopping: all.filter((l) => l.phase === "stopping").length,
      lastDecision: this.lastDecision,
      scalingEvents: [...this.events],
      restarts: this.restarts,
    };
  }

  /**
   * Back to the baseline: minReplicas ready, nothing starting or stopping, and
   * the autoscaler's history forgotten. Throws a ProviderError if not reached in time.
   */
  async resetToMin(timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.autoscaler?.clear();
    try {
      this.scaleTo(this.settings.minReplicas);
      const min = this.settings.minReplicas;
      const until = Date.now() + timeoutMs;
      for (;;) {
        const s = this.snapshot();
        if (s.ready.length === min && s.starting === 0 && s.stopping === 0 && !this.reconciling) break;
        if (signal.aborted)
          throw new ProviderError(`reset of local-service stopped before it got back to ${min} replica(s) (ready ${s.ready.length})`);
        if (Date.now() > until) {
          throw new ProviderError(
            `local-service did not get back to its minimum of ${min} replica(s) within ${timeoutMs} ms (ready ${s.ready.length}, starting ${s.starting}, stopping ${s.stopping})` +
              (this.lastFailure ? `: ${this.lastFailure}` : ""),
          );
        }
        await sleep(100);
      }
      // Checked, not assumed: every replica answers through its own port.
      for (const r of this.snapshot().ready) {
        for (const e of r.endpoints) {
          const res = await request(`http://${e.host}:${e.port}${this.healthPath()}`, { timeoutMs: 2000 }).catch((err: Error) => ({
            status: 0,
            body: err.message,
          }));
          if (res.status < 200 || res.status > 299)
            throw new ProviderError(`replica r${r.id} does not answer its health check after the reset (${res.status || res.body})`);
        }
      }
      this.lastDecision = null;
      this.events = [];
    } finally {
      // Reached or not, the run goes on (flagged by the pipeline if not): the autoscaler runs again.
      this.startAutoscaler();
    }
  }

  private healthPath(): string {
    const m = this.plan.app.manifest;
    return m.services ? m.services[m.entry!]!.healthPath : m.healthPath!;
  }

  /** Stops the loop and waits for any scaling in progress; processes are stopped by the caller. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.reconciling?.catch(() => {});
    await this.saving;
  }

  /** Every replica record this controller knows (for teardown). */
  records(): ReplicaRecord[] {
    return [...this.live.values()].map((l) => l.record);
  }
}
