// Writes this worker's heartbeat (contract in @opsbench/jobs) every few seconds
// while its run queue consumer is running. A stuck event loop, a lost Redis or a
// stopped consumer all stop the beats, which is what the healthcheck notices.
import os from "node:os";
import { removeWorkerHeartbeat, WORKER_HEARTBEAT_INTERVAL_MS, writeWorkerHeartbeat } from "@opsbench/jobs";
import type { Redis } from "ioredis";
import type { Logger } from "./logger";

export interface HeartbeatSource {
  /** True while the worker takes jobs (not closing, consumer running). */
  isConsuming(): boolean;
  runIds(): string[];
  studyIds?(): string[];
}

export function startHeartbeat(redis: Redis, source: HeartbeatSource, log: Logger) {
  const host = os.hostname();
  const workerId = `${host}:${process.pid}`;
  const startedAt = new Date().toISOString();
  let failing = false;
  const beat = async () => {
    if (!source.isConsuming()) return;
    try {
      await writeWorkerHeartbeat(redis, {
        workerId,
        host,
        pid: process.pid,
        startedAt,
        at: new Date().toISOString(),
        runIds: source.runIds(),
        studyIds: source.studyIds?.() ?? [],
      });
      if (failing) log.info({ workerId }, "heartbeat written again");
      failing = false;
    } catch (err) {
      // Logged once per outage, not every five seconds.
      if (!failing) log.warn({ err, workerId }, "heartbeat not written");
      failing = true;
    }
  };
  void beat();
  const timer = setInterval(() => void beat(), WORKER_HEARTBEAT_INTERVAL_MS);
  return {
    workerId,
    /** Beats now, out of turn (e.g. as soon as the consumer is ready). */
    beat,
    async stop() {
      clearInterval(timer);
      await removeWorkerHeartbeat(redis, workerId).catch(() => {});
    },
  };
}
