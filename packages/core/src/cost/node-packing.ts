// Kubernetes as billed: a cluster pays for its nodes, not its pods. The nodes a run needed are the pods over time
// packed onto nodes (podsPerNode, or the node's allocatable vCPU over the pod's CPU request), never fewer than the
// pool's minimum, and a node no longer needed stays until the cluster autoscaler removes it (its scale-down delay,
// 10 min by default on GKE, EKS and AKS). Per-pod pricing (each pod pays its share of a node) is the alternative
// for a shared cluster whose nodes the run does not own (docs/cost.md).
import type { StaircaseStep } from "./staircase";

export interface NodePacking {
  podsPerNode: number;
  minNodes: number;
  scaleDownDelaySeconds: number;
}

/** Pods per node from the node's allocatable vCPU and the pod's CPU request (at least 1: a pod fits an empty node or none). */
export function podsPerNodeOf(nodeVcpu: number, podCpu: number): number {
  return Math.max(1, Math.floor(nodeVcpu / podCpu + 1e-9));
}

/** Steps with equal counts merged (the first step kept at 0). */
function merged(steps: StaircaseStep[]): StaircaseStep[] {
  const out: StaircaseStep[] = [];
  for (const s of steps) if (out.length === 0 || out.at(-1)!.count !== s.count) out.push(s);
  return out;
}

/**
 * The node staircase behind a pod staircase over [0, durationSeconds): at each second the nodes needed,
 * max(minNodes, ceil(pods / podsPerNode)), held for scaleDownDelaySeconds after they are no longer needed
 * (the count at t is the most needed in [t - delay, t]).
 */
export function nodeStaircase(pods: StaircaseStep[], durationSeconds: number, p: NodePacking): StaircaseStep[] {
  const needed = pods.map((s) => ({ fromSecond: s.fromSecond, count: Math.max(p.minNodes, Math.ceil(s.count / p.podsPerNode)) }));
  if (p.scaleDownDelaySeconds <= 0) return merged(needed);
  const at = (t: number) => [...needed].reverse().find((s) => s.fromSecond <= t)?.count ?? needed[0]?.count ?? p.minNodes;
  // The count can only change where a step starts or where a step's delay runs out.
  const times = [...new Set(needed.flatMap((s) => [s.fromSecond, s.fromSecond + p.scaleDownDelaySeconds]))]
    .filter((t) => t < durationSeconds)
    .sort((a, b) => a - b);
  const ends = needed.map((_s, i) => (i + 1 < needed.length ? needed[i + 1]!.fromSecond : durationSeconds));
  return merged(
    times.map((t) => {
      // The most needed by any step that overlaps [t - delay, t].
      let most = at(t);
      needed.forEach((s, i) => {
        if (s.fromSecond <= t && ends[i]! > t - p.scaleDownDelaySeconds) most = Math.max(most, s.count);
      });
      return { fromSecond: t, count: most };
    }),
  );
}

/** What an Application Load Balancer's capacity units are measured on (AWS: the highest of the four, per hour). */
export interface LcuUsage {
  newConnections: number;
  /** Concurrent connections at the busiest minute (k6: its VUs at most, one connection each). */
  peakActiveConnections: number;
  /** Bytes the balancer processed, both ways, in GB (10^9 bytes). */
  processedGb: number;
  /** Rule evaluations beyond the 10 free per request. */
  ruleEvaluations: number;
}

/** One LCU: 25 new connections/s, 3,000 active connections (per minute), 1 GB per hour (EC2 targets), 1,000 rule evaluations/s. */
export const LCU_DIMENSIONS = { newConnectionsPerSecond: 25, activeConnections: 3000, gbPerHour: 1, ruleEvaluationsPerSecond: 1000 };

/**
 * LCU-hours of a window of `durationSeconds`: the window's usage spread evenly over the hours it is billed in
 * (each started hour), each hour's LCUs the highest of the four dimensions.
 */
export function lcuHours(u: LcuUsage, durationSeconds: number): { hours: number; lcuPerHour: number; lcuHours: number; dimension: string } {
  const hours = Math.max(1, Math.ceil(durationSeconds / 3600 - 1e-9));
  const seconds = hours * 3600;
  const dims = {
    "new connections": u.newConnections / seconds / LCU_DIMENSIONS.newConnectionsPerSecond,
    "active connections": u.peakActiveConnections / LCU_DIMENSIONS.activeConnections,
    "processed bytes": u.processedGb / hours / LCU_DIMENSIONS.gbPerHour,
    "rule evaluations": u.ruleEvaluations / seconds / LCU_DIMENSIONS.ruleEvaluationsPerSecond,
  };
  const [dimension, lcuPerHour] = Object.entries(dims).reduce((a, b) => (b[1] > a[1] ? b : a));
  return { hours, lcuPerHour, lcuHours: lcuPerHour * hours, dimension };
}
