// Sign-in and sign-up throttling, in Redis (every web process counts together) and in every mode: per account
// (the email tried) and per client address (lib/server/client-address.ts: the socket's, or X-Forwarded-For from a
// trusted proxy). A request over a limit gets 429 with Retry-After and a message saying which limit and when.
// No setting turns it off, and nothing here depends on NODE_ENV. The route passes the Redis connection and the
// key prefix (so this module has no app imports and a test can drive it directly).
import type Redis from "ioredis";

interface Limit {
  what: string;
  max: number;
  windowSeconds: number;
}

/** Sign-in attempts per account: a password guesser gets 10 tries in 10 minutes, whatever addresses it uses. */
export const SIGN_IN_PER_ACCOUNT: Limit = { what: "sign-in attempts for this account", max: 10, windowSeconds: 600 };
/** Sign-in attempts per client address, over all accounts. */
export const SIGN_IN_PER_ADDRESS: Limit = { what: "sign-in attempts from your address", max: 30, windowSeconds: 600 };
/** Sign-ups per client address. */
export const SIGN_UP_PER_ADDRESS: Limit = { what: "sign-ups from your address", max: 20, windowSeconds: 600 };

export interface ThrottleStore {
  redis: Redis;
  /** Starts every key (the Redis URL's `?prefix=`, else "opsbench"). */
  prefix: string;
}

/**
 * Counts one attempt; the seconds until the window ends when the limit is passed, else null. A window starts at a
 * subject's first attempt and lasts windowSeconds (the key's TTL), not at a clock-aligned boundary: with those, a
 * burst across the boundary got twice the limit (and a test whose attempts crossed one saw no refusal).
 */
async function count(store: ThrottleStore, limit: Limit, subject: string): Promise<number | null> {
  const key = `${store.prefix}:auth-throttle:${limit.what}:${subject}`;
  const answer = await store.redis.multi().set(key, 0, "EX", limit.windowSeconds, "NX").incr(key).ttl(key).exec();
  const n = Number(answer?.[1]?.[1] ?? 0);
  const ttl = Number(answer?.[2]?.[1] ?? limit.windowSeconds);
  return n > limit.max ? Math.max(1, ttl) : null;
}

function tooMany(limit: Limit, retryAfter: number): Response {
  const minutes = Math.round(limit.windowSeconds / 60);
  return Response.json(
    {
      code: "TOO_MANY_REQUESTS",
      message: `Too many ${limit.what}: at most ${limit.max} in ${minutes} minutes. Try again in ${retryAfter} s.`,
    },
    { status: 429, headers: { "retry-after": String(retryAfter) } },
  );
}

async function emailOf(request: Request): Promise<string> {
  try {
    const body: unknown = await request.clone().json();
    const email = (body as { email?: unknown } | null)?.email;
    return typeof email === "string" ? email.trim().toLowerCase() : "";
  } catch {
    return "";
  }
}

/** A 429 for a sign-in or sign-up over its limits, else null (the request goes on to Better Auth). */
export async function throttleAuth(store: ThrottleStore, request: Request, client: string): Promise<Response | null> {
  if (request.method !== "POST") return null;
  const path = new URL(request.url).pathname;
  if (path === "/api/auth/sign-in/email") {
    const email = await emailOf(request);
    const limits: Array<[Limit, string]> = [[SIGN_IN_PER_ADDRESS, client]];
    if (email) limits.push([SIGN_IN_PER_ACCOUNT, email]);
    for (const [limit, subject] of limits) {
      const retryAfter = await count(store, limit, subject);
      if (retryAfter !== null) return tooMany(limit, retryAfter);
    }
  }
  if (path === "/api/auth/sign-up/email") {
    const retryAfter = await count(store, SIGN_UP_PER_ADDRESS, client);
    if (retryAfter !== null) return tooMany(SIGN_UP_PER_ADDRESS, retryAfter);
  }
  return null;
}
