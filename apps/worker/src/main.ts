// The worker process: consumes run jobs and study jobs, one load test at a time per
// host across workers (two load tests on one machine would measure each other). k6
// itself runs on the host's runner (apps/runner), which holds no secret; the worker
// holds them. At start, before it takes a job, the reconciler ends what a dead worker
// left unfinished; the periodic passes (reconciler, reaper, retention) are job
// schedulers one worker takes per tick (maintenance.ts). On SIGTERM/SIGINT
// it stops within a bound: stop taking jobs, stop k6 gracefully (its results are
// kept), tear the target down, mark the run ABORTED, close Redis and Postgres.
import { Worker, UnrecoverableError } from "bullmq";
import { Redis } from "ioredis";
import { createDb } from "@opsbench/db";
import { opsbenchServicePorts } from "@opsbench/core";
import {
  createLoadQueue,
  LOAD_QUEUE,
  segmentJobPayload,
  type SegmentJobPayload,
  RUN_QUEUE,
  STALLED_JOB_SETTINGS,
  STUDY_QUEUE,
  createRunQueue,
  createStudyQueue,
  queuePrefix,
  readWorkerHeartbeats,
  redisConnection,
  runJobPayload,
  studyJobPayload,
  type RunJobPayload,
  type StudyJobPayload,
} from "@opsbench/jobs";
import { loadEnv } from "./env";
import { type K6Settings, RunnerClient } from "./runner-client";
import { createLogger } from "./logger";
import { reconcile, type ReconcilerDeps } from "./reconciler";
import { executeRun, type PipelineDeps } from "./run-pipeline";
import { DEFAULT_DB_OUTAGE_WAIT_MS } from "./pipeline/run-context";
import { startHeartbeat } from "./heartbeat";
import { LoadLock } from "./load-lock";
import type { SegmentSettings } from "./segments/coordinator";
import { executeSegment } from "./segments/generator";
import { executeStudy } from "./study-runner";
import { startScriptValidationWorker } from "./script-validation-worker";
import { startCredentialCheckWorker } from "./credential-check-worker";
import { startMaintenance } from "./maintenance";

const env = loadEnv();
/** `--role load` on the command line (opsbench worker --role load) wins over OPSBENCH_WORKER_ROLE. */
const roleArg = process.argv.indexOf("--role");
const role = roleArg >= 0 ? process.argv[roleArg + 1] : env.OPSBENCH_WORKER_ROLE;
if (role !== "all" && role !== "load") throw new Error(`--role must be "all" or "load", not ${JSON.stringify(role)}`);
const log = createLogger(env.LOG_LEVEL);
// Queries wait (bounded) for a Postgres that is restarting instead of failing the run (docs/faults.md).
const db = createDb(env.DATABASE_URL, {
  waitForDatabase: {
    maxWaitMs: DEFAULT_DB_OUTAGE_WAIT_MS,
    onWait: (err) => log.warn({ err: String(err) }, "database unreachable: waiting for it"),
  },
});
const publisher = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 3 });
publisher.on("error", (err) => log.error({ err }, "redis publisher error"));
const runner = new RunnerClient(env.OPSBENCH_RUNNER_SOCKET);
const runnerHealth = await waitForRunner(runner);
if (runnerHealth.sandboxProblem)
  log.warn({ problem: runnerHealth.sandboxProblem, allowUnsandboxed: runnerHealth.allowUnsandboxed }, "the runner cannot sandbox k6");
const k6: K6Settings = {
  runner,
  version: runnerHealth.k6Version,
  deadline: { graceSeconds: env.OPSBENCH_K6_GRACE_SECONDS, maxSeconds: env.OPSBENCH_MAX_LOAD_SECONDS },
  blockHosts: [new URL(env.DATABASE_URL).hostname, new URL(env.REDIS_URL).hostname],
  remoteLoad: runnerHealth.allowUnsandboxed || runnerHealth.routedEgress === true,
  blockPorts: opsbenchServicePorts({
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    webPort: env.OPSBENCH_WEB_PORT,
    extra: env.OPSBENCH_LOAD_BLOCKED_PORTS,
  }),
};
// Single runs, study runs and other hosts' load segments of every worker on this host share it: one load test at a time (in Redis).
const loadLock = new LoadLock({
  redis: publisher,
  prefix: queuePrefix(env.REDIS_URL),
  // The host is the runner's: every worker using one runner loads from the same machine.
  host: env.OPSBENCH_LOAD_HOST ?? runnerHealth.hostId,
  leaseMs: env.OPSBENCH_LOAD_LEASE_SECONDS * 1000,
  log,
});
const loadQueue = createLoadQueue(env.REDIS_URL);
const segments: SegmentSettings = {
  host: loadLock.host,
  queue: loadQueue,
  redis: publisher,
  redisUrl: env.REDIS_URL,
  readyDeadlineMs: env.OPSBENCH_SEGMENT_READY_SECONDS * 1000,
};
// Credentials targets name are opened with this key; cloud API stand-ins come from here only, never from a request.
const endpoints = { aws: env.OPSBENCH_AWS_ENDPOINT_URL, gcp: env.OPSBENCH_GCP_ENDPOINT_URL };
const credentialDeps = { secretKey: env.OPSBENCH_SECRET_KEY, endpoints };
// What this process executes now: its heartbeat lists it, the reconciler leaves it alone.
const live = { runs: new Set<string>(), studies: new Set<string>() };
const pipeline: PipelineDeps = {
  db,
  redis: publisher,
  log,
  k6,
  benchappsDir: env.OPSBENCH_BENCHAPPS_DIR,
  workDir: env.OPSBENCH_WORK_DIR,
  live: live.runs,
  loadHosts: env.OPSBENCH_LOAD_ALLOWED_HOSTS,
  dnsServers: env.OPSBENCH_DNS_SERVERS,
  ...credentialDeps,
  segments,
};
const running = new Map<string, AbortController>();
/** Load segments this worker generates, by "<runId>:<segment>". */
const runningSegments = new Map<string, AbortController>();
const stoppingStudies = new AbortController();
const consumerOptions = {
  connection: redisConnection(env.REDIS_URL),
  prefix: queuePrefix(env.REDIS_URL),
  concurrency: 1,
  ...STALLED_JOB_SETTINGS,
  // Taken only after the first reconciler pass (below).
  autorun: false,
};

const worker = new Worker<RunJobPayload>(
  RUN_QUEUE,
  async (job) => {
    const parsed = runJobPayload.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`bad job payload: ${parsed.error.message}`);
    const { runId } = parsed.data;
    const abort = new AbortController();
    running.set(runId, abort);
    try {
      // A wait cut short by SIGTERM fails the job; the run stays QUEUED and the reconciler enqueues it again.
      await loadLock.run(() => executeRun(runId, pipeline, abort.signal), abort.signal);
    } finally {
      running.delete(runId);
    }
  },
  consumerOptions,
);
worker.on("error", (err) => log.error({ err }, "worker error"));
// The job id is the run id.
worker.on("failed", (job, err) => log.error({ runId: job?.data.runId, jobId: job?.id, err }, "job failed"));
worker.on("ready", () => log.info({ k6: k6.version, queue: RUN_QUEUE }, "worker ready"));

const studyWorker = new Worker<StudyJobPayload>(
  STUDY_QUEUE,
  async (job) => {
    const parsed = studyJobPayload.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`bad job payload: ${parsed.error.message}`);
    const { studyId } = parsed.data;
    live.studies.add(studyId);
    try {
      await executeStudy(studyId, { ...pipeline, lock: loadLock }, stoppingStudies.signal);
    } finally {
      live.studies.delete(studyId);
    }
  },
  consumerOptions,
);
studyWorker.on("error", (err) => log.error({ err }, "study worker error"));
studyWorker.on("failed", (job, err) => log.error({ studyId: job?.data.studyId, jobId: job?.id, err }, "study job failed"));

// Users' own k6 scripts are checked here before the web app saves them (it never spawns k6).
const scriptWorker = role === "all" ? startScriptValidationWorker({ redisUrl: env.REDIS_URL, runner, log }) : null;

// Load segments of runs split over several generators, on any worker. A segment of a run of this host is not
// under the load lock (the run that split itself holds it); one of another host's run takes this host's lock.
const loadWorker = new Worker<SegmentJobPayload>(
  LOAD_QUEUE,
  async (job) => {
    const parsed = segmentJobPayload.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`bad job payload: ${parsed.error.message}`);
    const abort = new AbortController();
    runningSegments.set(`${parsed.data.runId}:${parsed.data.segment}`, abort);
    try {
      await executeSegment(
        parsed.data,
        {
          db,
          redis: publisher,
          redisUrl: env.REDIS_URL,
          log,
          k6,
          host: loadLock.host,
          lock: loadLock,
          keepSamples: env.OPSBENCH_K6_KEEP_SAMPLES,
        },
        abort.signal,
      );
    } finally {
      runningSegments.delete(`${parsed.data.runId}:${parsed.data.segment}`);
    }
  },
  { connection: redisConnection(env.REDIS_URL), prefix: queuePrefix(env.REDIS_URL), concurrency: 1, lockDuration: 60_000 },
);
loadWorker.on("error", (err) => log.error({ err }, "load worker error"));
loadWorker.on("ready", () => log.info({ role, queue: LOAD_QUEUE }, "load generator ready"));

// Read before this worker's first beat: after a container restart a dead predecessor may share its id.
const beatsAtStart = await readWorkerHeartbeats(publisher).catch(() => undefined);
// Credentials being saved are checked here (the web app never calls a cloud API).
const credentialWorker = startCredentialCheckWorker({
  redisUrl: env.REDIS_URL,
  secretKey: env.OPSBENCH_SECRET_KEY,
  endpoints,
  loadHosts: env.OPSBENCH_LOAD_ALLOWED_HOSTS,
  protectedPorts: k6.blockPorts,
  log,
});

let stopping = false;
const heartbeat = startHeartbeat(
  publisher,
  {
    isConsuming: () => !stopping && (role === "all" ? worker.isRunning() : loadWorker.isRunning()),
    runIds: () => [...new Set([...live.runs, ...[...runningSegments.keys()].map((k) => k.split(":")[0]!)])],
    studyIds: () => [...live.studies],
  },
  log,
);
worker.on("ready", () => void heartbeat.beat());
loadWorker.on("ready", () => void heartbeat.beat());
log.info({ workerId: heartbeat.workerId }, "heartbeat started");

const runQueue = createRunQueue(env.REDIS_URL);
const studyQueue = createStudyQueue(env.REDIS_URL);
const reconcilerDeps: ReconcilerDeps = {
  ...pipeline,
  runQueue,
  studyQueue,
  executing: live,
  queueRedis: publisher,
  workerId: heartbeat.workerId,
  readHeartbeats: () => readWorkerHeartbeats(publisher),
};
const startedAt = Date.now();
try {
  const report = await reconcile(reconcilerDeps, beatsAtStart);
  log.info({ ms: Date.now() - startedAt, failed: report.failed.length }, "start-up reconciliation done");
} catch (err) {
  // A database or Redis away at start: the periodic pass tries again.
  log.error({ err }, "start-up reconciliation failed");
}
// The reconciler's periodic pass, the reaper (resources on real platforms of final runs) and the retention sweep
// (raw series past a workspace's period): once per tick for the installation, by whichever worker takes it.
const maintenance =
  role === "all"
    ? await startMaintenance({
        redisUrl: env.REDIS_URL,
        db,
        log,
        reconciler: reconcilerDeps,
        reaper: { db, log, ...credentialDeps, loadHosts: env.OPSBENCH_LOAD_ALLOWED_HOSTS, protectedPorts: k6.blockPorts },
        everyMs: {
          reconcile: env.OPSBENCH_RECONCILE_SECONDS * 1000,
          reap: env.OPSBENCH_REAPER_SECONDS * 1000,
          "retention-sweep": env.OPSBENCH_RETENTION_SWEEP_SECONDS * 1000,
        },
      }).catch((err) => {
        log.error({ err }, "the maintenance schedulers could not be started; other workers take their ticks");
        return null;
      })
    : null;
// A generator-only worker (--role load) takes no runs or studies: only load segments.
if (!stopping && role === "all") {
  void worker.run();
  void studyWorker.run();
  // The first beat now that it consumes, not an interval later (the healthcheck reads it).
  void heartbeat.beat();
}

async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  const started = Date.now();
  log.info(
    { signal, running: [...live.runs], studies: [...live.studies], graceSeconds: env.OPSBENCH_SHUTDOWN_GRACE_SECONDS },
    "shutting down",
  );
  // The bound: whatever is not done by then is left to the next start's reconciler.
  setTimeout(() => {
    log.error({ running: [...live.runs] }, "shutdown grace period over; exiting with work unfinished");
    process.exit(1);
  }, env.OPSBENCH_SHUTDOWN_GRACE_SECONDS * 1000).unref();
  await heartbeat.stop();
  await maintenance?.stop();
  for (const abort of [...running.values(), ...runningSegments.values()]) abort.abort();
  stoppingStudies.abort();
  // Each waits for its current job, which now ends as ABORTED after teardown.
  await Promise.all([worker.close(), studyWorker.close(), scriptWorker?.close(), credentialWorker.close(), loadWorker.close()]);
  await Promise.all([runQueue.close(), studyQueue.close(), loadQueue.close()]);
  await publisher.quit().catch(() => {});
  await db.$disconnect();
  log.info({ ms: Date.now() - started }, "stopped");
  process.exit(0);
}
/** The runner starts beside the worker (compose, the CLI): wait for it a while rather than fail at once. */
async function waitForRunner(client: RunnerClient, waitMs = 60_000) {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      return await client.health();
    } catch (err) {
      if (Date.now() > until) throw new Error(`${(err as Error).message} (waited ${waitMs / 1000} s; is the runner started?)`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
