// The worker heartbeat contract. Each worker process writes one Redis key,
// `opsbench:worker-heartbeat:<workerId>`, every WORKER_HEARTBEAT_INTERVAL_MS while
// its run queue consumer is running; the key expires after WORKER_HEARTBEAT_TTL_SECONDS,
// so a worker that died or lost Redis disappears on its own. The web app's
// /api/health lists them; the worker container's healthcheck looks for its own.
import type { Redis } from "ioredis";
import { z } from "zod";

export const WORKER_HEARTBEAT_PREFIX = "opsbench:worker-heartbeat:";
export const WORKER_HEARTBEAT_INTERVAL_MS = 5_000;
/** A heartbeat older than this means the worker is stuck or gone (three missed beats, plus slack). */
export const WORKER_HEARTBEAT_STALE_MS = 20_000;
export const WORKER_HEARTBEAT_TTL_SECONDS = 30;

export const workerHeartbeat = z.object({
  workerId: z.string().min(1),
  /** The machine's (or container's) host name; a container's healthcheck finds its own worker by it. */
  host: z.string().min(1),
  pid: z.number().int(),
  startedAt: z.iso.datetime(),
  at: z.iso.datetime(),
  /** Ids of the runs this worker is executing now (single runs and a study's run). */
  runIds: z.array(z.string()),
  /** Ids of the studies this worker is executing now (absent in beats of older workers). */
  studyIds: z.array(z.string()).default([]),
});
export type WorkerHeartbeat = z.infer<typeof workerHeartbeat>;

export const workerHeartbeatKey = (workerId: string) => `${WORKER_HEARTBEAT_PREFIX}${workerId}`;

export async function writeWorkerHeartbeat(redis: Redis, beat: z.input<typeof workerHeartbeat>): Promise<void> {
  const value = workerHeartbeat.parse(beat);
  await redis.set(workerHeartbeatKey(value.workerId), JSON.stringify(value), "EX", WORKER_HEARTBEAT_TTL_SECONDS);
}

/** Called on a clean shutdown, so the worker is gone from /api/health at once rather than after the TTL. */
export async function removeWorkerHeartbeat(redis: Redis, workerId: string): Promise<void> {
  await redis.del(workerHeartbeatKey(workerId));
}

/** Every heartbeat still in Redis (unexpired), oldest worker first; values that do not parse are skipped. */
export async function readWorkerHeartbeats(redis: Redis): Promise<WorkerHeartbeat[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", `${WORKER_HEARTBEAT_PREFIX}*`, "COUNT", 100);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== "0");
  if (keys.length === 0) return [];
  const beats: WorkerHeartbeat[] = [];
  for (const raw of await redis.mget(...keys)) {
    if (raw === null) continue;
    const parsed = workerHeartbeat.safeParse(safeJson(raw));
    if (parsed.success) beats.push(parsed.data);
  }
  return beats.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

export const heartbeatAgeMs = (beat: WorkerHeartbeat, now = Date.now()) => Math.max(0, now - Date.parse(beat.at));

export const isHeartbeatFresh = (beat: WorkerHeartbeat, now = Date.now()) => heartbeatAgeMs(beat, now) <= WORKER_HEARTBEAT_STALE_MS;

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}
