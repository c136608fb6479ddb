// opsbench's own telemetry in Prometheus's text format (prom-client): one registry per process, the series every
// process may record (queues, run phases, the load lock, ingest, HTTP requests), and the text a /metrics answer
// carries. Here, beside the queues, because the web app and the worker both depend on this package and the one
// consumer wrapper (consumed-queues.ts) records the queue series. Recording costs a map update: always on; only the
// endpoints that expose it are configured (docs/self-hosting.md "Metrics").
import type { Queue } from "bullmq";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** Seconds: from a few milliseconds (a script check) to hours (a long run, a load-lock wait behind one). */
const SECONDS_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14_400];

function createMetrics() {
  const metricsRegistry = new Registry();
  collectDefaultMetrics({ register: metricsRegistry, prefix: "opsbench_process_" });

  const queueWaitSeconds = new Histogram({
    name: "opsbench_queue_wait_seconds",
    help: "Time a job waited in its queue before a worker took it (from when it was due: added, or its delay's end)",
    labelNames: ["queue"] as const,
    buckets: SECONDS_BUCKETS,
    registers: [metricsRegistry],
  });

  const queueProcessingSeconds = new Histogram({
    name: "opsbench_queue_processing_seconds",
    help: "Time a worker spent on a job, by outcome (completed or failed)",
    labelNames: ["queue", "outcome"] as const,
    buckets: SECONDS_BUCKETS,
    registers: [metricsRegistry],
  });

  const queueFailures = new Counter({
    name: "opsbench_queue_failures_total",
    help: "Jobs whose attempt failed (a bad payload, or the handler threw)",
    labelNames: ["queue"] as const,
    registers: [metricsRegistry],
  });

  const runPhaseSeconds = new Histogram({
    name: "opsbench_run_phase_seconds",
    help: "Duration of a run's pipeline phases (claim ... teardown, and `run` for the whole), by outcome (ok, failed)",
    labelNames: ["phase", "outcome"] as const,
    buckets: SECONDS_BUCKETS,
    registers: [metricsRegistry],
  });

  const loadLockWaitSeconds = new Histogram({
    name: "opsbench_load_lock_wait_seconds",
    help: "Time spent waiting for the host's load lock (one load test at a time per machine), by outcome (acquired, aborted)",
    labelNames: ["outcome"] as const,
    buckets: SECONDS_BUCKETS,
    registers: [metricsRegistry],
  });

  const ingestRows = new Counter({
    name: "opsbench_ingest_rows_total",
    help: "Per-second result rows written to Postgres, by source (worker: a run's k6; import: k6 result files and external runs)",
    labelNames: ["source"] as const,
    registers: [metricsRegistry],
  });

  const httpRequests = new Counter({
    name: "opsbench_http_requests_total",
    help: "HTTP requests the web app's API answered, by route pattern, method and status",
    labelNames: ["route", "method", "status"] as const,
    registers: [metricsRegistry],
  });

  const httpRequestSeconds = new Histogram({
    name: "opsbench_http_request_seconds",
    help: "Time the web app's API took to answer, by route pattern and method",
    labelNames: ["route", "method"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metricsRegistry],
  });
  return {
    metricsRegistry,
    queueWaitSeconds,
    queueProcessingSeconds,
    queueFailures,
    runPhaseSeconds,
    loadLockWaitSeconds,
    ingestRows,
    httpRequests,
    httpRequestSeconds,
  };
}

declare global {
  var opsbenchMetrics: ReturnType<typeof createMetrics> | undefined;
}

// One set per process, kept on globalThis: Next bundles each route on its own, and a module instance per bundle
// would give the API's counters and the /metrics route two registries.
globalThis.opsbenchMetrics ??= createMetrics();
export const {
  metricsRegistry,
  queueWaitSeconds,
  queueProcessingSeconds,
  queueFailures,
  runPhaseSeconds,
  loadLockWaitSeconds,
  ingestRows,
  httpRequests,
  httpRequestSeconds,
} = globalThis.opsbenchMetrics;

const queueStates = ["waiting", "active", "delayed", "failed", "prioritized", "waiting-children"] as const;

/**
 * opsbench_queue_jobs{queue,state}: the queues' lengths, read from Redis when scraped (not kept up to date in between,
 * which would cost a Redis call per job). Registered once per process, by the process that has the queues at hand.
 */
export function registerQueueLengths(queues: () => Queue[]): void {
  if (metricsRegistry.getSingleMetric("opsbench_queue_jobs")) metricsRegistry.removeSingleMetric("opsbench_queue_jobs");
  new Gauge({
    name: "opsbench_queue_jobs",
    help: "Jobs in each queue by state, read from Redis at scrape time",
    labelNames: ["queue", "state"] as const,
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      await Promise.all(
        queues().map(async (q) => {
          const counts = await q.getJobCounts(...queueStates).catch(() => null);
          if (counts) for (const state of queueStates) this.set({ queue: q.name, state }, counts[state] ?? 0);
        }),
      );
    },
  });
}

/** Times `fn` into `histogram` with `labels` and outcome "ok" or "failed" (rethrowing). */
export async function timed<T>(histogram: Histogram<"phase" | "outcome">, phase: string, fn: () => Promise<T>): Promise<T> {
  const end = histogram.startTimer({ phase });
  try {
    const value = await fn();
    end({ outcome: "ok" });
    return value;
  } catch (err) {
    end({ outcome: "failed" });
    throw err;
  }
}

/** The text of a /metrics answer and its content type. */
export async function metricsText(): Promise<{ body: string; contentType: string }> {
  return { body: await metricsRegistry.metrics(), contentType: metricsRegistry.contentType };
}

/**
 * Whether a /metrics request may read: with `token` set, only a request bearing it (`Authorization: Bearer <token>`);
 * without, only a loopback client (a sidecar or a probe in the same container or machine) that did not come through
 * a proxy: a reverse proxy on the same machine connects from loopback on behalf of anyone, and says so in
 * X-Forwarded-For / Forwarded (`forwarded`).
 */
export function metricsAccess(
  token: string | undefined,
  authorization: string | null,
  clientAddress: string | null,
  forwarded = false,
): boolean {
  if (token) {
    const given = /^Bearer\s+(.+)$/i.exec(authorization ?? "")?.[1]?.trim();
    return given !== undefined && constantTimeEqual(given, token);
  }
  return !forwarded && clientAddress !== null && isLoopback(clientAddress);
}

/** Whether a request carries a proxy's forwarding header. */
export const forwardedByProxy = (header: (name: string) => string | null | undefined) =>
  Boolean(header("x-forwarded-for") || header("forwarded"));

const isLoopback = (address: string) => /^(127\.|::1$|::ffff:127\.)/.test(address);

function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  return diff === 0;
}
