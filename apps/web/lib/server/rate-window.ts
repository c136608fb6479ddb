// The one Redis rate limiter of the web app: sign-in and sign-up throttling (auth-throttle.ts) and run creations and
// script checks (rate-limit.ts) count through it. A window starts at a subject's first action and lasts
// `windowSeconds` (the key's TTL), so every web process counts together and a burst cannot straddle a clock boundary:
// with clock-aligned windows (a key per minute) run creation let 2x its limit through around each minute's turn.
// No app imports: a test drives it with its own Redis.
import type Redis from "ioredis";

export interface RateWindow {
  /** Actions allowed in one window. */
  max: number;
  windowSeconds: number;
}

/**
 * Counts one action under `key`: null while at most `max` fell in the key's window, else the seconds until that
 * window ends (at least 1). The first action of a subject starts its window (SET NX with the TTL).
 */
export async function countInWindow(redis: Redis, key: string, limit: RateWindow): Promise<number | null> {
  const answer = await redis.multi().set(key, 0, "EX", limit.windowSeconds, "NX").incr(key).ttl(key).exec();
  const count = Number(answer?.[1]?.[1] ?? 0);
  if (count <= limit.max) return null;
  return Math.max(1, Number(answer?.[2]?.[1] ?? limit.windowSeconds));
}

/** The key and window of run creations in a workspace (rate-limit.ts assertRate("run creations", ...)). */
export const rateKey = (name: string, subject: string) => `opsbench:rate:${name}:${subject}`;
export const PER_MINUTE_SECONDS = 60;
