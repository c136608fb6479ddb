// The worker container's healthcheck: exits 0 when a worker on this host (the
// container's host name) wrote a heartbeat within WORKER_HEARTBEAT_STALE_MS, 1 otherwise.
//   node --import tsx apps/worker/src/healthcheck.ts
import os from "node:os";
import { Redis } from "ioredis";
import { loadEnv } from "./env";
import { ownHeartbeatAge } from "./heartbeat-age";

export { ownHeartbeatAge } from "./heartbeat-age";

async function main() {
  const env = loadEnv();
  const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 3_000, retryStrategy: () => null });
  redis.on("error", () => {});
  try {
    const age = await ownHeartbeatAge(redis, os.hostname());
    if (age === null) {
      console.error(`healthcheck: no fresh worker heartbeat from ${os.hostname()}`);
      return 1;
    }
    console.log(`healthcheck: worker heartbeat ${Math.round(age / 1000)} s old`);
    return 0;
  } catch (err) {
    console.error(`healthcheck: cannot read heartbeats: ${(err as Error).message}`);
    return 1;
  } finally {
    redis.disconnect();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await main();
