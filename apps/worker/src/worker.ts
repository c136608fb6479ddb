// One worker, top to bottom: it consumes run, study and load-segment jobs (and script and credential checks), one
// load test at a time per host across workers (two load tests on one machine would measure each other). k6 itself
// runs on the host's runner (apps/runner), which holds no secret; the worker holds them. Before it takes a job, its
// reconciler ends what a dead worker left unfinished; the periodic passes are job schedulers one worker takes per
// tick (maintenance.ts). close() stops it in order (shutdown.ts). main.ts runs one as a process; tests start one
// in-process with startWorker.
import { readWorkerHeartbeats, registerQueueLengths } from "@opsbench/jobs";
import type { WorkerConfig } from "./config";
import { consumerCatalog, startConsumers } from "./consumers";
import { startHeartbeat } from "./heartbeat";
import { inFlightRegistry } from "./in-flight";
import type { Logger } from "./logger";
import { startWorkerMaintenance } from "./maintenance";
import { startMetricsServer } from "./metrics-server";
import { startTracing } from "./tracing";
import { syncSchedules } from "./schedule-worker";
import { openServices, pipelineDeps } from "./services";
import { shutDown } from "./shutdown";

export type WorkerHandle = Awaited<ReturnType<typeof startWorker>>;

export async function startWorker(config: WorkerConfig, log: Logger) {
  const { env, role } = config;
  // Traces only when the standard OTEL_* variables ask for them (tracing.ts); the SDK is not loaded otherwise.
  const tracing = await startTracing(env);
  const services = await openServices(config, log);
  const inFlight = inFlightRegistry();
  const pipeline = pipelineDeps(config, services, inFlight.live.runs, log);
  const consumers = startConsumers(consumerCatalog(config, services, inFlight, pipeline, log), env.REDIS_URL, log);
  registerQueueLengths(() => Object.values(services.queues));
  // /metrics and /health on OPSBENCH_WORKER_METRICS_PORT and/or OPSBENCH_WORKER_HEALTH_SOCKET; neither: no listener.
  const tcp =
    env.OPSBENCH_WORKER_METRICS_PORT === undefined
      ? undefined
      : { port: env.OPSBENCH_WORKER_METRICS_PORT, host: env.OPSBENCH_WORKER_METRICS_HOST };
  const metrics =
    tcp || env.OPSBENCH_WORKER_HEALTH_SOCKET
      ? await startMetricsServer(
          { tcp, socket: env.OPSBENCH_WORKER_HEALTH_SOCKET, token: env.OPSBENCH_METRICS_TOKEN, redis: services.redis },
          log,
        )
      : null;

  // Read before this worker's first beat: after a container restart a dead predecessor may share its id.
  const beatsAtStart = await readWorkerHeartbeats(services.redis).catch(() => undefined);
  let stopping: Promise<void> | null = null;
  const taking = consumers.named(role === "all" ? "run" : "load");
  const heartbeat = startHeartbeat(
    services.redis,
    { isConsuming: () => !stopping && taking?.isRunning() === true, runIds: inFlight.runIds, studyIds: inFlight.studyIds },
    log,
  );
  for (const name of ["run", "load"] as const) consumers.named(name)?.on("ready", () => void heartbeat.beat());
  log.info({ workerId: heartbeat.workerId }, "heartbeat started");

  const self = { pipeline, executing: inFlight.live, workerId: heartbeat.workerId };
  const maintenance = await startWorkerMaintenance(config, services, self, beatsAtStart, log);
  // A generator-only worker (--role load) takes no runs or studies: only load segments.
  if (role === "all") {
    // The schedules' job schedulers from their rows (docs/schedules.md), before this worker takes ticks.
    await syncSchedules(services, log);
    consumers.runDeferred();
    // The first beat now that it consumes, not an interval later (the healthcheck reads it).
    void heartbeat.beat();
  }

  const parts = { heartbeat, maintenance, inFlight, consumers: consumers.all, services, log };
  return {
    workerId: heartbeat.workerId,
    inFlight,
    /** Stops in order (shutdown.ts); a second call waits for the first. */
    /** The metrics and health listener's address (OPSBENCH_WORKER_METRICS_PORT), or null when it has none. */
    metricsUrl: metrics?.url ?? null,
    /** Stops in order (shutdown.ts), the metrics listener last; a second call waits for the first. */
    close: (why: { signal: string; graceSeconds?: number } = { signal: "close" }) =>
      (stopping ??= shutDown(parts, why).finally(async () => {
        await metrics?.close();
        await tracing?.shutdown();
      })),
  };
}
