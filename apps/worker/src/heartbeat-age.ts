// How fresh this host's worker heartbeat is: what the healthcheck script and the metrics listener's /health read.
import { isHeartbeatFresh, readWorkerHeartbeats } from "@opsbench/jobs";
import type { Redis } from "ioredis";

/** The freshest heartbeat age (ms) of a worker on `host`, or null when there is none that is fresh. */
export async function ownHeartbeatAge(redis: Redis, host: string, now = Date.now()): Promise<number | null> {
  const mine = (await readWorkerHeartbeats(redis)).filter((b) => b.host === host && isHeartbeatFresh(b, now));
  return mine.length === 0 ? null : Math.min(...mine.map((b) => now - Date.parse(b.at)));
}
