// The consumer catalog: every queue this worker takes jobs from (packages/jobs consumed-queues.ts: name, payload
// schema, options), with its handler and what its log lines say, all served by one generic consumer (serve):
// parse, the handler (under an abort of the in-flight registry where shutdown must stop it), log what failed.
import type { Job, Worker } from "bullmq";
import { CONSUMED_QUEUES, type ConsumedQueue, startConsumer } from "@opsbench/jobs";
import type { z } from "zod";
import type { WorkerConfig } from "./config";
import { retryDelayMs } from "@opsbench/core";
import { checkCredentialJob } from "./credential-check-worker";
import { exportRunJob } from "./exports/export-run-job";
import { deliverNotificationJob } from "./notifications/deliver-notification";
import type { InFlight } from "./in-flight";
import { holdHost } from "./load-lock";
import type { Logger } from "./logger";
import type { PipelineDeps } from "./pipeline/run-context";
import { executeRun } from "./run-pipeline";
import { validateScriptJob } from "./script-validation-worker";
import { executeSegment } from "./segments/generator";
import type { Services } from "./services";
import { executeStudy } from "./study-runner";
import { inSpan } from "./tracing";
import { handleScheduleTick } from "./schedule-worker";

export interface Consumer<Schema extends z.ZodType = z.ZodType> {
  queue: ConsumedQueue<Schema>;
  /** Its log lines: "<label> error". */
  label: string;
  handle: (payload: z.output<Schema>, job: Job) => Promise<unknown>;
  /** Taken only after the worker's start-up reconciliation, and only by a worker of role "all". */
  afterStartUpPass?: boolean;
  /** What a failed job's log line names. */
  failed?: { message: string; ids: (data: Partial<z.input<Schema>>) => object };
  /** The log line when it is connected. */
  ready?: { message: string; fields: object };
  /** The delay before a failed job's next attempt, for jobs added with a custom backoff (the notifications'). */
  backoffStrategy?: (attemptsMade: number, type?: string) => number;
}

/** A catalog entry: its consumer, typed by its payload, and how to start it. */
export interface CatalogEntry {
  afterStartUpPass: boolean;
  start: (redisUrl: string, log: Logger) => Worker;
}

const consumer = <Schema extends z.ZodType>(c: Consumer<Schema>): CatalogEntry => ({
  afterStartUpPass: c.afterStartUpPass ?? false,
  start: (redisUrl, log) => serve(c, redisUrl, log),
});

export function consumerCatalog(config: WorkerConfig, services: Services, inFlight: InFlight, pipeline: PipelineDeps, log: Logger) {
  const { env } = config;
  const { loadLock } = services;
  const protectedPorts = services.k6.blockPorts;
  return {
    run: consumer({
      queue: CONSUMED_QUEUES.run,
      label: "worker",
      afterStartUpPass: true,
      // A wait cut short by SIGTERM fails the job; the run stays QUEUED and the reconciler enqueues it again.
      handle: ({ runId }) =>
        inFlight.abortable(`run:${runId}`, async (signal) => {
          const host = await holdHost(loadLock, signal);
          try {
            await executeRun(runId, pipeline, signal, { host });
          } finally {
            await host.release();
          }
        }),
      // The job id is the run id.
      failed: { message: "job failed", ids: (data) => ({ runId: data.runId }) },
      ready: { message: "worker ready", fields: { k6: services.k6.version } },
    }),
    study: consumer({
      queue: CONSUMED_QUEUES.study,
      label: "study worker",
      afterStartUpPass: true,
      handle: ({ studyId }) => inFlight.study(studyId, (stop) => executeStudy(studyId, { ...pipeline, lock: loadLock }, stop)),
      failed: { message: "study job failed", ids: (data) => ({ studyId: data.studyId }) },
    }),
    // Load segments of runs split over several generators, on any worker. A segment of a run of this host is not
    // under the load lock (the run that split itself holds it); one of another host's run takes this host's lock.
    load: consumer({
      queue: CONSUMED_QUEUES.load,
      label: "load worker",
      ready: { message: "load generator ready", fields: { role: config.role } },
      handle: (job) =>
        inFlight.abortable(
          `segment:${job.runId}:${job.segment}`,
          (signal) =>
            executeSegment(
              job,
              {
                db: services.db,
                redis: services.redis,
                redisUrl: env.REDIS_URL,
                log,
                k6: services.k6,
                host: loadLock.host,
                lock: loadLock,
                keepSamples: env.OPSBENCH_K6_KEEP_SAMPLES,
                secretKey: env.OPSBENCH_SECRET_KEY,
              },
              signal,
            ),
          job.runId,
        ),
    }),
    // Users' own k6 scripts are checked here before the web app saves them (it never spawns k6); not by a generator-only worker.
    ...(config.role === "all"
      ? {
          scriptValidation: consumer({
            queue: CONSUMED_QUEUES.scriptValidation,
            label: "script validation worker",
            handle: validateScriptJob({ runner: services.runner, log }),
          }),
          // Schedules' ticks: each one recorded once (its row's unique key), then a run or study queued as any other.
          // After the start-up pass, so a tick never judges "still going" on a run a dead worker left unfinished.
          schedule: consumer({
            queue: CONSUMED_QUEUES.schedule,
            label: "schedule worker",
            afterStartUpPass: true,
            handle: ({ scheduleId }, job) => handleScheduleTick(services, log, scheduleId, job),
            failed: { message: "schedule tick job failed", ids: (data) => ({ scheduleId: data.scheduleId }) },
          }),
        }
      : {}),
    // Webhooks and e-mails (docs/notifications.md), sent from here under the load targets' egress rule; not by a
    // generator-only worker.
    ...(config.role === "all"
      ? {
          notifications: consumer({
            queue: CONSUMED_QUEUES.notifications,
            label: "notification worker",
            handle: deliverNotificationJob({
              db: services.db,
              secretKey: config.credentials.secretKey,
              publicUrl: env.OPSBENCH_PUBLIC_URL,
              log,
              policy: {
                allowlist: env.OPSBENCH_LOAD_ALLOWED_HOSTS,
                privateRanges: env.OPSBENCH_LOAD_PRIVATE_RANGES,
                protectedPorts: config.blockPorts,
                dnsServers: env.OPSBENCH_DNS_SERVERS,
              },
            }),
            backoffStrategy: (attemptsMade) => retryDelayMs(attemptsMade, env.OPSBENCH_NOTIFICATION_RETRY_BASE_MS),
          }),
          // Runs' series to the workspaces' Prometheus and OTLP receivers (docs/exports.md), under the same egress rule
          // and with the same retry schedule as the notifications.
          exports: consumer({
            queue: CONSUMED_QUEUES.exports,
            label: "results export worker",
            handle: exportRunJob({
              db: services.db,
              secretKey: config.credentials.secretKey,
              log,
              policy: {
                allowlist: env.OPSBENCH_LOAD_ALLOWED_HOSTS,
                privateRanges: env.OPSBENCH_LOAD_PRIVATE_RANGES,
                protectedPorts: config.blockPorts,
                dnsServers: env.OPSBENCH_DNS_SERVERS,
              },
            }),
            backoffStrategy: (attemptsMade) => retryDelayMs(attemptsMade, env.OPSBENCH_NOTIFICATION_RETRY_BASE_MS),
          }),
        }
      : {}),
    // Credentials being saved are checked here (the web app never calls a cloud API).
    credentialCheck: consumer({
      queue: CONSUMED_QUEUES.credentialCheck,
      label: "credential check worker",
      handle: checkCredentialJob({ ...config.credentials, loadHosts: env.OPSBENCH_LOAD_ALLOWED_HOSTS, protectedPorts, log }),
    }),
  };
}

/** The one generic consumer: any catalog entry, on the worker's Redis. */
function serve<Schema extends z.ZodType>(c: Consumer<Schema>, redisUrl: string, log: Logger): Worker {
  // A job is one span when traces are on (tracing.ts); its run's phases are its children.
  const handle: typeof c.handle = (payload, job) =>
    inSpan(`job ${c.queue.name}`, { "opsbench.queue": c.queue.name, "opsbench.job_id": job.id ?? "" }, () => c.handle(payload, job));
  const worker = startConsumer(c.queue, redisUrl, handle, {
    autorun: !c.afterStartUpPass,
    ...(c.backoffStrategy ? { backoffStrategy: c.backoffStrategy } : {}),
  });
  worker.on("error", (err) => log.error({ err }, `${c.label} error`));
  const { failed, ready } = c;
  if (failed) worker.on("failed", (job, err) => log.error({ ...failed.ids(job?.data ?? {}), jobId: job?.id, err }, failed.message));
  if (ready) worker.on("ready", () => log.info({ ...ready.fields, queue: c.queue.name }, ready.message));
  return worker;
}

/** Starts every consumer of the catalog; those that wait for the start-up pass take jobs once runDeferred() is called. */
export function startConsumers<C extends Record<string, CatalogEntry>>(catalog: C, redisUrl: string, log: Logger) {
  const started = Object.entries(catalog).map(([name, c]) => ({ name, deferred: c.afterStartUpPass, worker: c.start(redisUrl, log) }));
  return {
    all: started.map((s) => s.worker),
    named: (name: keyof C & string) => started.find((s) => s.name === name)?.worker,
    runDeferred() {
      for (const s of started) if (s.deferred) void s.worker.run();
    },
  };
}
