// The one Redis rate limiter: the web app's sign-in and sign-up throttling (apps/web/lib/server/auth-throttle.ts), its
// script checks (rate-limit.ts), and run creations, whether a request or a schedule's tick asks (work-admission.ts)
// count through it. A window starts at a subject's first action and lasts
// `windowSeconds` (the key's TTL), so every web process counts together and a burst cannot straddle a clock boundary:
// with clock-aligned windows (a key per minute) run creation let 2x its limit through around each minute's turn.
// A test drives it with its own Redis.
import type { Redis } from "ioredis";

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

/** The key of one kind of action (e.g. "run creations") of one subject (e.g. a workspace id). */
export const rateKey = (name: string, subject: string) => `opsbench:rate:${name}:${subject}`;
export const PER_MINUTE_SECONDS = 60;
