// The metrics as the studies defined them, named so a page can say which one it
// shows and a user can pick. Each is a pure function of stored per-second rows.

export type StudyMetricId =
  | "max-throughput"
  | "stable-throughput"
  | "goodput"
  | "success-ratio"
  | "expected-response-ratio"
  | "weighted-qps"
  | "scaling-duration"
  | "throughput-per-vcpu";

export interface StudyMetricDefinition {
  id: StudyMetricId;
  label: string;
  /** Which study defined it (the seeds: 000 IoT, 001 echo, 002 ASG vs EKS, 004 shop), or k6. */
  source: string;
  definition: string;
}

export const STUDY_METRIC_DEFINITIONS: Record<StudyMetricId, StudyMetricDefinition> = {
  "max-throughput": {
    id: "max-throughput",
    label: "maximum throughput",
    source: "study 004",
    definition: "highest 10 s moving average of successful (2xx) responses per second of the chosen request name",
  },
  "stable-throughput": {
    id: "stable-throughput",
    label: "stable throughput",
    source: "study 004",
    definition: "80% of the maximum throughput: the rate a stable-load run is driven at",
  },
  goodput: { id: "goodput", label: "goodput", source: "study 000", definition: "share of responses with a 2xx status, in percent" },
  "success-ratio": {
    id: "success-ratio",
    label: "success ratio",
    source: "study 001",
    definition: "share of all requests answered with a 2xx status, in percent",
  },
  "expected-response-ratio": {
    id: "expected-response-ratio",
    label: "expected-response ratio",
    source: "k6",
    definition: "share of requests k6 did not count as failed (expected_response: a status the script expects)",
  },
  "weighted-qps": {
    id: "weighted-qps",
    label: "weighted qps",
    source: "study 002",
    definition: "requests per second divided by the target's mean CPU utilization in percent over the load window",
  },
  "scaling-duration": {
    id: "scaling-duration",
    label: "scaling duration",
    source: "study 002",
    definition: "seconds from the start of the load until the replicas (instances) first reached the most the load window saw",
  },
  "throughput-per-vcpu": {
    id: "throughput-per-vcpu",
    label: "throughput per vCPU",
    source: "study 004",
    definition: "requests per second divided by the target's mean vCPUs over the load window (replicas over time x vCPUs per replica)",
  },
};

/** A replica (instance) timeline point. */
export interface ReplicaPoint {
  ts: Date;
  replicas: number;
}

/** The count at `start` (the last point at or before it, else the first after) and the points inside [start, end], in time order. */
function windowed(points: Iterable<ReplicaPoint>, start: Date, end: Date): { atStart: number; inside: ReplicaPoint[] } | null {
  const sorted = [...points].sort((a, b) => a.ts.getTime() - b.ts.getTime());
  if (sorted.length === 0) return null;
  const before = sorted.filter((p) => p.ts <= start).at(-1);
  const inside = sorted.filter((p) => p.ts > start && p.ts <= end);
  return { atStart: (before ?? inside[0] ?? sorted[0]!).replicas, inside };
}

/**
 * Study 002's scaling duration: seconds from the load's start until the replicas first reached the most the load
 * window saw (0 when it started there: it did not scale). Null without a replica timeline.
 */
export function scalingDuration(
  points: Iterable<ReplicaPoint>,
  start: Date,
  end: Date,
): { seconds: number; fromReplicas: number; maxReplicas: number } | null {
  const w = windowed(points, start, end);
  if (!w) return null;
  const maxReplicas = Math.max(w.atStart, ...w.inside.map((p) => p.replicas));
  if (maxReplicas === w.atStart) return { seconds: 0, fromReplicas: w.atStart, maxReplicas };
  const reached = w.inside.find((p) => p.replicas === maxReplicas)!;
  return { seconds: (reached.ts.getTime() - start.getTime()) / 1000, fromReplicas: w.atStart, maxReplicas };
}

/** The mean vCPUs over [start, end]: the replica staircase (each point holds until the next), time-weighted, x vCPUs per replica. */
export function meanVcpus(points: Iterable<ReplicaPoint>, start: Date, end: Date, vcpuPerReplica: number | null): number | null {
  const w = windowed(points, start, end);
  const span = end.getTime() - start.getTime();
  if (!w || vcpuPerReplica === null || span <= 0) return null;
  let at = start.getTime();
  let count = w.atStart;
  let sum = 0;
  for (const p of w.inside) {
    sum += count * (p.ts.getTime() - at);
    at = p.ts.getTime();
    count = p.replicas;
  }
  sum += count * (end.getTime() - at);
  return (sum / span) * vcpuPerReplica;
}

/** Study 004's throughput per vCPU: req/s over the mean vCPUs. Null without a vCPU figure above zero. */
export function throughputPerVcpu(rps: number, vcpus: number | null): number | null {
  return vcpus !== null && vcpus > 0 ? rps / vcpus : null;
}

/** Study 004's stable load: a share (80%) of a measured maximum throughput. */
export function stableThroughput(maxRps: number, share = 0.8): number {
  return maxRps * share;
}

const percent = (part: number, whole: number) => (whole > 0 ? (100 * part) / whole : null);

/** Study 000's goodput and study 001's success ratio: the 2xx share of all requests, in percent (null without requests). */
export function twoXxShare(byClass: Readonly<Record<string, number>>): number | null {
  const total = Object.values(byClass).reduce((a, b) => a + b, 0);
  return percent(byClass["2xx"] ?? 0, total);
}

/** k6's expected_response ratio: requests not counted as failed, in percent. */
export function expectedResponseRatio(requests: number, failures: number): number | null {
  return percent(requests - failures, requests);
}

/** Mean of the CPU samples inside [start, end] (inclusive); null when there are none. */
export function meanCpuPercent(points: Iterable<{ ts: Date; cpuPercent: number | null }>, start: Date, end: Date): number | null {
  let sum = 0;
  let n = 0;
  for (const p of points) {
    if (p.cpuPercent === null || p.ts < start || p.ts > end) continue;
    sum += p.cpuPercent;
    n++;
  }
  return n ? sum / n : null;
}

/** Study 002's weighted qps: qps / CPU% (57233 qps at 99.60% CPU is 574.6). Null without a CPU figure above zero. */
export function weightedQps(qps: number, cpuPercent: number | null): number | null {
  return cpuPercent !== null && cpuPercent > 0 ? qps / cpuPercent : null;
}
