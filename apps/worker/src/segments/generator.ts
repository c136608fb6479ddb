// One load generator of a run on several: a job from the "load" queue runs k6 execution segment
// i/N against the deployment the run's worker made. k6 starts paused; once its VUs are up the
// segment says it is ready (Redis), waits for the start the run's worker agrees, and resumes at
// that instant on its own clock corrected to the database server's. Its per-second rows carry
// its segment and the corrected second. It stops when the run gives up, and keeps an alive key
// fresh while it works, so a lost machine is noticed within seconds.
import os from "node:os";
import { compileEngineInput, loadAdmission, readStoredJson, workloadSpec } from "@opsbench/core";
import { isLoopbackHost } from "@opsbench/host";
import { databaseClockOffsetMs, runStore, segmentStore, type Db } from "@opsbench/db";
import {
  K6_PAUSED_BEFORE_RUN,
  K6_THRESHOLDS_FAILED,
  type K6Result,
  type K6Status,
  segmentCoordination,
  type SegmentJobPayload,
} from "@opsbench/jobs";
import type { Redis } from "ioredis";
import type { LoadLock, Release } from "../load-lock";
import type { Logger } from "../logger";
import { resolveWorkload } from "../pipeline/workload";
import { k6Limits } from "../pipeline/load";
import { type ScriptEnv, scriptEnvOf } from "../pipeline/script-env";
import { ResultWriter } from "../result-writer";
import type { K6Settings } from "../runner-client";

export interface GeneratorDeps {
  db: Db;
  redis: Redis;
  redisUrl: string;
  log: Logger;
  k6: K6Settings;
  /** The host this worker loads from (its load lock's host id; the runner's by default). */
  host?: string;
  /** This host's load lock: a segment of a run of another host takes it (shared by that run's segments here). */
  lock?: LoadLock;
  /** OPSBENCH_SECRET_KEY: opens the workspace secrets a run's script is given. */
  secretKey?: string;
  /** Also keep k6's raw JSON output (every sample) on the runner (<its work dir>/k6-samples/<run>-segment-<i>.json), to check opsbench's numbers. */
  keepSamples?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A paused k6 on the runner, steered through it (its REST API lives inside k6's own network). */
interface K6Control {
  status(): Promise<K6Status | null>;
  resume(): Promise<void>;
}

export async function executeSegment(job: SegmentJobPayload, deps: GeneratorDeps, signal: AbortSignal): Promise<void> {
  const { runId, segment, count } = job;
  const log = deps.log.child({ runId, segment });
  const segments = segmentStore(deps.db, runId);
  const coordination = segmentCoordination(deps.redis, deps.redisUrl, runId);
  const offsetStart = await databaseClockOffsetMs(deps.db);
  const worker = `${deps.host ?? os.hostname()}:${process.pid}`;
  if (!(await segments.claim(segment, worker, offsetStart))) {
    log.info("segment already taken or given up; nothing to do");
    return;
  }
  const alive = setInterval(() => void coordination.beat(segment).catch(() => {}), 1000);
  await coordination.beat(segment);
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  // The run's worker gives up (deadline, abort): stop k6 wherever it is.
  const cancelWatch = setInterval(async () => {
    if (await coordination.cancelled().catch(() => null)) stop.abort();
  }, 500);
  let control: K6Control | null = null;
  let releaseHost: Release | null = null;
  let script: ScriptEnv = { env: {}, mask: (t) => t };
  try {
    // Rows land on the database server's second: whole seconds of offset are corrected here.
    const store = runStore(deps.db, runId, { segment, clockShiftSeconds: Math.round(offsetStart / 1000) });
    const run = await store.loadPlan();
    const spec = await resolveWorkload(workloadSpec.parse(run.workloadSpec), deps.db, run.workspaceId);
    const endpoint = await deploymentEndpoint(deps.db, runId);
    // The run's --env and secrets, as its own worker gives them (pipeline/script-env.ts).
    script = await scriptEnvOf(deps.db, runId, endpoint, deps.secretKey);
    // Before anything starts: may this host load this target at all (refused: the segment fails with the reason)?
    const problem = hostProblem(job, endpoint, deps);
    if (problem) throw new Error(problem);
    // On a host other than the run's, this host's load lock: one load at a time here too. The run's own host is
    // held by the run itself. Every segment of the run on this host shares one hold.
    if (job.host && deps.host && deps.lock && job.host !== deps.host) {
      void store
        .event("info", `load generator segment ${segment + 1}/${count} on host ${deps.host} waits for that host's load lock`, { segment })
        .catch(() => {});
      releaseHost = await deps.lock.acquire(stop.signal, { shareAs: `run:${runId}` });
    }
    const writer = new ResultWriter(store, () => {}, log);
    const key = `${runId}-segment-${segment}`;
    const resumed = waitAndResume(() => control, { segment, worker, offsetStart, coordination, segments, signal: stop.signal }, log);
    let result: K6Result;
    try {
      result = await deps.k6.runner.runK6(
        {
          key,
          ...compileEngineInput(spec),
          env: script.env,
          // The address the run's worker admitted and pinned (load-host-check.ts): every generator loads that one.
          pinnedAddress: readStoredJson(loadAdmission, run.loadAdmission)?.address ?? null,
          deadline: deps.k6.deadline,
          segment: { index: segment, count },
          paused: true,
          keepSamplesAs: deps.keepSamples ? `${runId}-segment-${segment}.json` : null,
          blockHosts: deps.k6.blockHosts,
          blockPorts: deps.k6.blockPorts ?? [],
          limits: k6Limits(await store.limits()),
        },
        {
          signal: stop.signal,
          onLine: (line) => writer.add(line),
          onLaunch: (ns) => {
            control = {
              status: () => deps.k6.runner.control(key, "status").catch(() => null),
              resume: async () => void (await deps.k6.runner.control(key, "resume")),
            };
            // Named on the timeline, with the network it runs in on the runner's host.
            void store
              .event("info", `load generator segment ${segment + 1}/${count} starting k6 (paused)`, { segment, netns: ns })
              .catch(() => {});
          },
        },
      );
    } finally {
      stop.abort();
      await resumed.catch(() => {});
      await writer.close();
    }
    const ok = result.exitCode === 0 || result.exitCode === K6_THRESHOLDS_FAILED;
    const cancelled = await coordination.cancelled();
    await segments.finish(segment, {
      status: ok && !cancelled ? "FINISHED" : "FAILED",
      exitCode: result.exitCode,
      cpuPercent: result.cpuPercentOfMachine,
      k6Summary: result.summary,
      k6Clock: writer.k6Clock,
      clockOffsetEndMs: await databaseClockOffsetMs(deps.db),
      error: cancelled
        ? `stopped: ${cancelled}`
        : result.overLimits
          ? `k6 was stopped: ${result.overLimits}`
          : result.resourceLimit
            ? result.resourceLimit
            : ok
              ? null
              : script.mask(`k6 exited with code ${result.exitCode}: ${result.outputTail || "no output"}`),
    });
    log.info({ exitCode: result.exitCode }, "segment finished");
  } catch (err) {
    log.error({ err }, "segment failed");
    await segments
      .finish(segment, {
        status: "FAILED",
        exitCode: -1,
        cpuPercent: null,
        k6Summary: null,
        k6Clock: null,
        clockOffsetEndMs: null,
        error: script.mask((err as Error).message),
      })
      .catch(() => {});
  } finally {
    await releaseHost?.();
    clearInterval(alive);
    clearInterval(cancelWatch);
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * Waits for k6's VUs (paused before the run), says READY, waits for the agreed start (database
 * clock), and resumes k6 at that instant on this machine's clock.
 */
async function waitAndResume(
  control: () => K6Control | null,
  s: {
    segment: number;
    worker: string;
    offsetStart: number;
    coordination: ReturnType<typeof segmentCoordination>;
    segments: ReturnType<typeof segmentStore>;
    signal: AbortSignal;
  },
  log: Logger,
): Promise<void> {
  for (;;) {
    if (s.signal.aborted) return;
    const status = await control()?.status();
    if (status?.paused && status.status >= K6_PAUSED_BEFORE_RUN) break;
    await sleep(100);
  }
  await s.segments.setStatus(s.segment, "READY");
  await s.coordination.markReady(s.segment, s.worker);
  let startDbMs: number | null = null;
  while (startDbMs === null) {
    if (s.signal.aborted) return;
    startDbMs = await s.coordination.start();
    if (startDbMs === null) await sleep(50);
  }
  // The database clock's start, on this machine's clock.
  const wait = startDbMs - s.offsetStart - Date.now();
  if (wait > 0) await sleep(wait);
  if (s.signal.aborted) return;
  await control()!.resume();
  await s.segments.setStatus(s.segment, "RUNNING", { startedAt: new Date() });
  log.info({ lateMs: Date.now() - (startDbMs - s.offsetStart) }, "segment resumed");
}

/**
 * Why this generator may not load the run's target, or null. A loopback target (127.0.0.0/8, ::1, localhost) is on the
 * run's host alone: a generator on another host would load its own loopback. A remote target needs a runner that
 * routes k6's sandbox to it (each runner loads the address the run's worker admitted and pinned, the run's
 * loadAdmission.address, without resolving the name again).
 */
export function hostProblem(
  job: Pick<SegmentJobPayload, "host" | "segment" | "count">,
  endpoint: string,
  deps: Pick<GeneratorDeps, "host" | "k6">,
): string | null {
  const host = new URL(endpoint).hostname;
  const which = `load generator segment ${job.segment + 1}/${job.count}`;
  if (isLoopbackHost(host)) {
    if (!job.host || !deps.host || job.host === deps.host) return null;
    return (
      `${which} refused on host ${deps.host}: the target ${endpoint} is on the loopback of host ${job.host} (the run's), ` +
      "and a loopback target is loaded only by generators on its own host. Run the load workers on that host, or name the target by an address every generator can reach"
    );
  }
  if (!deps.k6.remoteLoad)
    return `${which} refused on host ${deps.host ?? os.hostname()}: its runner cannot route k6's sandbox to the remote target ${host} (no routed egress: IPv4 forwarding off or no sandbox; docs/security.md "Remote targets")`;
  return null;
}

/** The target's address, as the run's worker recorded it when it deployed. */
async function deploymentEndpoint(db: Db, runId: string): Promise<string> {
  const step = await runStore(db, runId).step("PROVISION");
  const endpoint = (step?.detail as { endpoint?: unknown } | null)?.endpoint;
  if (typeof endpoint !== "string") throw new Error("the run has no deployment to load (no endpoint on its PROVISION step)");
  return endpoint;
}
