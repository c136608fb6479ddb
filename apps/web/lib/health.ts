// What /api/health reports: can this web server reach Postgres and Redis, are
// workers alive (their heartbeats), and how much work is queued. Unauthenticated
// by design, so it says ok / not ok and counts, never URLs, host names or errors
// (those go to the server log).
import { type Db, pingDatabase } from "@opsbench/db";
import {
  isHeartbeatFresh,
  heartbeatAgeMs,
  type QueueDepth,
  queueDepth,
  readWorkerHeartbeats,
  type RunQueue,
  type StudyQueue,
} from "@opsbench/jobs";
import { Redis } from "ioredis";
import { log } from "./log";

const CHECK_TIMEOUT_MS = 2_000;

export interface HealthReport {
  /** down: Postgres or Redis unreachable (HTTP 503); degraded: no live worker, runs would wait (HTTP 200). */
  status: "ok" | "degraded" | "down";
  checkedAt: string;
  database: { ok: boolean; latencyMs: number | null };
  redis: { ok: boolean; latencyMs: number | null };
  workers: { ok: boolean; live: number; heartbeats: { ageMs: number; fresh: boolean; runs: number }[] };
  queues: { run: QueueDepth | null; study: QueueDepth | null };
}

export interface HealthDeps {
  db: Db;
  redisUrl: string;
  runQueue: RunQueue;
  studyQueue: StudyQueue;
}

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Runs `check`, timing it; a failure or timeout is logged and reported as null. */
async function attempt<T>(what: string, check: () => Promise<T>): Promise<{ value: T | null; latencyMs: number | null }> {
  const started = performance.now();
  try {
    const value = await withTimeout(check(), what);
    return { value, latencyMs: Math.round(performance.now() - started) };
  } catch (err) {
    log.warn({ check: what, err }, "health check failed");
    return { value: null, latencyMs: null };
  }
}

export async function checkHealth(deps: HealthDeps, now = Date.now()): Promise<HealthReport> {
  // A connection of its own: a fresh connect is the signal, and a down Redis must not queue commands forever.
  const redis = new Redis(deps.redisUrl, {
    lazyConnect: true,
    connectTimeout: CHECK_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on("error", () => {});
  try {
    const [database, ping, runDepth, studyDepth] = await Promise.all([
      attempt("database", async () => {
        await pingDatabase(deps.db);
        return true;
      }),
      attempt("redis", async () => {
        await redis.connect();
        return redis.ping();
      }),
      attempt("run queue", () => queueDepth(deps.runQueue)),
      attempt("study queue", () => queueDepth(deps.studyQueue)),
    ]);
    const redisOk = ping.value === "PONG";
    const beats = redisOk ? ((await attempt("worker heartbeats", () => readWorkerHeartbeats(redis))).value ?? []) : [];
    const heartbeats = beats.map((b) => ({ ageMs: heartbeatAgeMs(b, now), fresh: isHeartbeatFresh(b, now), runs: b.runIds.length }));
    const live = heartbeats.filter((h) => h.fresh).length;
    const databaseOk = database.value !== null;
    return {
      status: !databaseOk || !redisOk ? "down" : live === 0 ? "degraded" : "ok",
      checkedAt: new Date(now).toISOString(),
      database: { ok: databaseOk, latencyMs: database.latencyMs },
      redis: { ok: redisOk, latencyMs: ping.latencyMs },
      workers: { ok: live > 0, live, heartbeats },
      queues: { run: runDepth.value, study: studyDepth.value },
    };
  } finally {
    redis.disconnect();
  }
}
