// One replica of a benchapp, as a pod is one replica of a Deployment: the
// processes of its placement (one per isolation domain), their cgroup (limits)
// and, optionally, a network namespace per process. Started, health-checked
// and stopped as a unit.
import type { Placement } from "@opsbench/core";
import { ProviderError } from "../provider";
import {
  addNamespace,
  type CgroupOutcome,
  createCgroup,
  freePort,
  groupAlive,
  inCgroups,
  inNamespace,
  isMember,
  type Limits,
  type NetworkState,
  removeCgroups,
  removeNamespaces,
  type Spawned,
  spawnGroup,
  stopGroup,
  wantsLimits,
} from "@opsbench/host";
import { waitHealthy } from "./http";
import { envName, MAIN_SERVICE, type Domain, type LoadedApp } from "./manifest";

/** What the deployment state keeps of a replica (plain JSON; enough to stop it from another process). */
export interface ReplicaRecord {
  id: number;
  /** The first process (the only one of a single-service app). */
  pid?: number;
  /** Process group leaders, one per domain. */
  pids: number[];
  /** Each leader's start time (clock ticks after boot), by position in `pids`: a stop skips a pid reused since. */
  starts?: Array<number | null>;
  /** Where the entry service's instances listen: the load balancer's backends. */
  endpoints: Array<{ host: string; port: number }>;
  /** Cgroup folders to remove at teardown. */
  cgroups: string[];
  namespaces: string[];
}

export interface ReplicaPlan {
  app: LoadedApp;
  domains: Domain[];
  placement: Placement;
  /** Environment of every process: the manifest's, then the spec's. */
  env: Record<string, string>;
  limits: Limits;
  /** Set when each process gets its own network namespace. */
  network: NetworkState | null;
  runId: string;
  deploymentId: string;
  startTimeoutMs: number;
}

export interface StartedReplica {
  record: ReplicaRecord;
  procs: Spawned[];
  limits: CgroupOutcome | null;
}

/**
 * Starts a replica and waits until every service instance answers its health
 * check. `onRecord` runs after each spawn (to persist pids before waiting).
 * On failure, whatever was started is stopped again before the error is thrown.
 */
export async function startReplica(
  plan: ReplicaPlan,
  id: number,
  signal: AbortSignal,
  onRecord: (r: ReplicaRecord) => Promise<void>,
): Promise<StartedReplica> {
  const record: ReplicaRecord = { id, pids: [], starts: [], endpoints: [], cgroups: [], namespaces: [] };
  const procs: Spawned[] = [];
  let limits: CgroupOutcome | null = null;
  try {
    if (wantsLimits(plan.limits)) {
      limits = createCgroup(`${plan.deploymentId}-r${id}`, plan.limits);
      record.cgroups = limits.paths;
    }
    const m = plan.app.manifest;
    // Where each domain lives and listens.
    const placed: Array<{ domain: Domain; host: string; ns: string | null; ports: number[] }> = [];
    for (const domain of plan.domains) {
      let host = "127.0.0.1";
      let ns: string | null = null;
      if (plan.network) {
        const made = await addNamespace(plan.network);
        record.namespaces.push(made.ns);
        ns = made.ns;
        host = made.address;
      }
      // Inside a namespace the address is the process's own, so fixed ports cannot clash.
      const ports = ns ? domain.serves.map((_, i) => 8080 + i) : await Promise.all(domain.serves.map(() => freePort()));
      placed.push({ domain, host, ns, ports });
    }
    const urls: Record<string, string[]> = {};
    for (const p of placed) {
      for (const [i, si] of p.domain.serves.entries()) {
        urls[si.service] ??= [];
        urls[si.service][si.instance] = `http://${p.host}:${p.ports[i]}`;
      }
    }
    const entry = m.services ? m.entry! : MAIN_SERVICE;
    for (const p of placed) {
      p.domain.serves.forEach((si, i) => {
        if (si.service === entry) record.endpoints.push({ host: p.host, port: p.ports[i]! });
      });
    }
    for (const p of placed) {
      const env: Record<string, string> = {
        ...m.env,
        ...plan.env,
        PORT: String(p.ports[0]),
        // Where it listens is opsbench's to say (target-env.ts refuses HOST in a spec; a stored one is ignored).
        HOST: p.host,
        OPSBENCH_RUN_ID: plan.runId,
      };
      if (plan.app.multiService) {
        Object.assign(env, {
          OPSBENCH_SERVE: JSON.stringify(
            p.domain.serves.map((si, i) => ({ service: si.service, instance: si.instance, port: p.ports[i] })),
          ),
          OPSBENCH_URLS: JSON.stringify(urls),
          OPSBENCH_PLACEMENT: plan.placement,
          OPSBENCH_COLOCATED: [...new Set(p.domain.serves.map((s) => s.service))].join(","),
        });
        for (const [service, list] of Object.entries(urls)) {
          env[`${envName(service)}_URL`] = list[0]!;
          env[`${envName(service)}_URLS`] = list.join(",");
        }
      }
      // Join the cgroup first: `ip netns exec` mounts a fresh /sys, hiding /sys/fs/cgroup.
      const command = inCgroups(limits?.enforced ? limits.paths : [], p.ns ? inNamespace(p.ns, p.domain.command) : p.domain.command);
      const proc = spawnGroup(command[0]!, command.slice(1), { cwd: plan.app.dir, env });
      procs.push(proc);
      record.pids.push(proc.pid);
      record.starts = [...(record.starts ?? []), proc.startTicks];
      record.pid ??= proc.pid;
      await onRecord(record);
    }
    await Promise.all(
      placed.flatMap((p, d) =>
        p.domain.serves.map((si, i) =>
          waitHealthy(`http://${p.host}:${p.ports[i]}${si.healthPath}`, procs[d]!, plan.startTimeoutMs, signal),
        ),
      ),
    );
    if (limits?.enforced) {
      const outside = record.pids.filter((pid) => !isMember(pid, limits!.paths));
      if (outside.length)
        limits = { ...limits, enforced: false, reason: `process(es) ${outside.join(", ")} did not join ${limits.paths.join(", ")}` };
    }
    return { record, procs, limits };
  } catch (err) {
    await stopReplica(record).catch(() => {});
    throw err;
  }
}

/** Stops every process of a replica and removes its cgroups and namespaces. Throws if something survives. */
export async function stopReplica(record: ReplicaRecord, graceMs = 5000): Promise<void> {
  const startOf = (i: number) => record.starts?.[i] ?? null;
  await Promise.all(record.pids.map((pid, i) => stopGroup(pid, graceMs, startOf(i))));
  const survivors = record.pids.filter((pid, i) => groupAlive(pid, startOf(i)));
  const left = [...(await removeCgroups(record.cgroups)), ...(await removeNamespaces(record.namespaces))];
  if (survivors.length) throw new ProviderError(`processes still running after stop: ${survivors.join(", ")}`);
  if (left.length) throw new ProviderError(`could not remove: ${left.join("; ")}`);
}
