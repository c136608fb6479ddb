// A run's infra timeline (infra_points, one a second while the load runs) as the
// run page draws it: replicas/instances, CPU (average and per replica/instance),
// cold starts and the queue, on the same x axis as the latency charts.
// The detail JSON is read leniently (core's infraPointDetailSchema): a row written by
// an older provider (or another kind) must never break a page. Fields: docs/local-engine.md.
import { observedDetail, readInfraPointDetail } from "@opsbench/core";
import type { Db } from "../client";

export interface InfraSeriesPoint {
  /** Seconds after the second the load started in (one decimal). */
  offsetSeconds: number;
  /** Ready replicas (local-service) or live instances (local-function). */
  replicas: number;
  /** Average CPU of the ready replicas/instances, % of one core. */
  cpuPercent: number | null;
  /** CPU % of one core per ready replica/instance, in the provider's order. */
  perUnitCpu: Array<number | null>;
  /** Ids of those replicas (local-service), so a replica keeps its line as others come and go; null when not recorded. */
  unitIds: Array<number | string> | null;
  /** local-service: replicas the controller converges to; local-function: instances ready. */
  desired: number | null;
  starting: number | null;
  /** local-function: cold starts in this second and each one's duration (ms). */
  coldStarts: number;
  coldStartMs: number[];
  /** local-function: requests waiting now, the most that waited since the last point, in flight now. */
  queued: number | null;
  queuedPeak: number | null;
  inFlight: number | null;
  /** local-function: 429s after waiting or at once, this second. */
  rejected: number | null;
  billedMs: number | null;
  /** local-service: autoscaler changes since the previous point. */
  scalingEvents: Array<{ from: number; to: number; reason: string }>;
}

export interface RunInfra {
  /** The target kind that wrote the points ("local-service", "local-function"), or null when unknown. */
  kind: string | null;
  points: InfraSeriesPoint[];
}

/** The run's infrastructure points, oldest first. */
export const runInfraPoints = (db: Db, runId: string) => db.infraPoint.findMany({ where: { runId }, orderBy: { ts: "asc" } });

export async function loadRunInfra(db: Db, runId: string, loadStart: Date | null): Promise<RunInfra> {
  const rows = await runInfraPoints(db, runId);
  if (rows.length === 0) return { kind: null, points: [] };
  const start = Math.floor((loadStart ?? rows[0]!.ts).getTime() / 1000) * 1000;
  let kind: string | null = null;
  const points = rows.map((r): InfraSeriesPoint => {
    const d = readInfraPointDetail(r.detail);
    if (d.kind !== undefined) kind = d.kind;
    // Which fields the point carries is its kind's (core kinds/: `observes`): a function's instances (per-instance CPU,
    // ready, the queue's refusals) or replicas (per-replica CPU and ids, desired). A point of no known kind reads as replicas.
    const observes = observedDetail(d.kind ?? "");
    const instances = observes.has("perInstanceCpu");
    return {
      offsetSeconds: Math.round((r.ts.getTime() - start) / 100) / 10,
      replicas: r.replicas,
      cpuPercent: r.cpuPercent,
      perUnitCpu: (instances ? d.perInstanceCpu : d.perReplicaCpu) ?? [],
      unitIds: instances ? null : (d.replicaIds ?? null),
      desired: (observes.has("ready") && !observes.has("desired") ? d.ready : d.desired) ?? null,
      starting: d.starting ?? null,
      coldStarts: d.coldStarts ?? 0,
      coldStartMs: (d.coldStartMs ?? []).filter((v): v is number => v !== null),
      queued: d.queued ?? null,
      queuedPeak: d.queuedPeak ?? null,
      inFlight: d.inFlight ?? null,
      rejected: observes.has("queueTimeouts") || observes.has("rejected") ? (d.queueTimeouts ?? 0) + (d.rejected ?? 0) : null,
      billedMs: d.billedMs ?? null,
      scalingEvents: (d.scalingEvents ?? []).map((e) => ({ from: e.from, to: e.to, reason: e.reason })),
    };
  });
  return { kind, points };
}
