// Sign-in and sign-up throttling, in Redis (every web process counts together) and in every mode. A password guesser
// is slowed; the account's owner is not locked out:
// - per client address (lib/server/client-address.ts: the socket's, or X-Forwarded-For from a trusted proxy), first:
//   30 sign-ins, 20 sign-ups and 10 password-reset mails in 10 minutes;
// - per account, for clients it does not know: after 5 failed sign-ins each try must wait for the one before's delay,
//   1 s doubling to at most 5 minutes, forgotten a day after the last failure. Growing delays, not a 10-minute wall:
//   a guesser gets about 12 tries an hour, and whoever knows the password waits at most 5 minutes;
// - a known client (a browser that signed in to this account before: a signed cookie, set at each successful sign-in)
//   is counted on its own, never with other clients: its owner signs in whatever a guesser elsewhere does, and a
//   stolen cookie gets the same slowed budget of its own.
// A refused request gets 429 with Retry-After and a message saying which limit and when. Nothing here depends on
// NODE_ENV; the route passes the Redis connection, the key prefix and the cookie key (so this module has no app
// imports and a test can drive it directly).
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type Redis from "ioredis";
import { countInWindow } from "@opsbench/jobs";

interface Limit {
  what: string;
  max: number;
  windowSeconds: number;
}

/** Sign-in attempts per client address, over all accounts (a client that knows the account is not counted here). */
export const SIGN_IN_PER_ADDRESS: Limit = { what: "sign-in attempts from your address", max: 30, windowSeconds: 600 };
/** Sign-ups per client address. */
export const SIGN_UP_PER_ADDRESS: Limit = { what: "sign-ups from your address", max: 20, windowSeconds: 600 };

/** Password-reset mails asked for per client address: a stranger cannot make the server mail an address over and over. */
export const PASSWORD_RESET_PER_ADDRESS: Limit = { what: "password-reset requests from your address", max: 10, windowSeconds: 600 };

/** Failed sign-ins of one account (from clients it does not know), or of one known client: delays that grow. */
export const SIGN_IN_BACKOFF = {
  /** Failures without a wait. */
  freeFailures: 5,
  /** The wait after the first failure beyond those; doubled by each one after. */
  firstDelaySeconds: 1,
  maxDelaySeconds: 300,
  /** The failures are forgotten this long after the last one. */
  forgetSeconds: 86_400,
};

export interface ThrottleStore {
  redis: Redis;
  /** Starts every key (the Redis URL's `?prefix=`, else "opsbench"). */
  prefix: string;
}

/** What signs the known-client cookie (derived from the auth secret by the route), and whether the cookie is https-only. */
export interface KnownClientKey {
  key: Buffer;
  secure: boolean;
}

/** Counts one attempt in the one limiter's window (packages/jobs rate-window.ts: it starts at the subject's first); the seconds left when over. */
const count = (store: ThrottleStore, limit: Limit, subject: string): Promise<number | null> =>
  countInWindow(store.redis, `${store.prefix}:auth-throttle:${limit.what}:${subject}`, limit);

// Each try is charged as a failure before it is made (so parallel tries cannot all pass one free moment), and the
// next try's earliest time set from the count; a success gives its charge back (settle). Redis's clock: every web
// process agrees on it.
const BACKOFF_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
local nextAt = tonumber(redis.call('HGET', KEYS[1], 'next') or '0')
if now < nextAt then return {0, nextAt - now, n} end
n = n + 1
local free, first, max = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local delay = 0
if n > free then delay = math.min(max, first * 2 ^ (n - free - 1)) end
redis.call('HSET', KEYS[1], 'n', n, 'next', now + delay)
redis.call('EXPIRE', KEYS[1], ARGV[4])
return {1, delay, n}`;

const REFUND_SCRIPT = "if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HINCRBY', KEYS[1], 'n', -1) end return 0";

const backoffKey = (store: ThrottleStore, subject: string) => `${store.prefix}:auth-throttle:sign-in backoff:${subject}`;

/** Charges one try to `subject`: null when it may go ahead, else the seconds until it may. */
async function chargeBackoff(store: ThrottleStore, subject: string): Promise<number | null> {
  const b = SIGN_IN_BACKOFF;
  const [allowed, wait] = (await store.redis.eval(
    BACKOFF_SCRIPT,
    1,
    backoffKey(store, subject),
    b.freeFailures,
    b.firstDelaySeconds * 1000,
    b.maxDelaySeconds * 1000,
    b.forgetSeconds,
  )) as [number, number, number];
  return allowed === 1 ? null : Math.max(1, Math.ceil(wait / 1000));
}

function tooMany(message: string, retryAfter: number): Response {
  return Response.json(
    { code: "TOO_MANY_REQUESTS", message: `${message} Try again in ${retryAfter} s.` },
    { status: 429, headers: { "retry-after": String(retryAfter) } },
  );
}

const overLimit = (limit: Limit, retryAfter: number) =>
  tooMany(`Too many ${limit.what}: at most ${limit.max} in ${Math.round(limit.windowSeconds / 60)} minutes.`, retryAfter);

const slowedDown = (retryAfter: number, known: boolean) => {
  const b = SIGN_IN_BACKOFF;
  return tooMany(
    `Too many failed sign-ins for this account${known ? " from this browser" : ""}: after ${b.freeFailures} failures each try waits for the one before (${b.firstDelaySeconds} s, doubling up to ${b.maxDelaySeconds / 60} minutes).` +
      (known ? "" : " A browser that signed in to this account before is not held up by other clients' failures."),
    retryAfter,
  );
};

async function emailOf(request: Request): Promise<string> {
  try {
    const body: unknown = await request.clone().json();
    const email = (body as { email?: unknown } | null)?.email;
    return typeof email === "string" ? email.trim().toLowerCase() : "";
  } catch {
    return "";
  }
}

/** The known-client cookie's name for an account: one per account, naming it only by a hash. */
export const knownClientCookie = (email: string) => `opsbench-known-${createHash("sha256").update(email).digest("hex").slice(0, 16)}`;

const mac = (key: Buffer, email: string, id: string) =>
  createHmac("sha256", key).update(`known-client\n${email}\n${id}`).digest("base64url");

function cookieValue(request: Request, name: string): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The id of the request's known-client cookie for `email` when its signature holds, else null. */
function knownClientId(request: Request, email: string, key: Buffer): string | null {
  const [id, sig] = (cookieValue(request, knownClientCookie(email)) ?? "").split(".");
  if (!id || !sig || !/^[\w-]{16,64}$/.test(id)) return null;
  const want = Buffer.from(mac(key, email, id));
  const got = Buffer.from(sig);
  return got.length === want.length && timingSafeEqual(got, want) ? id : null;
}

/** The Set-Cookie of a known client of `email` (a new id, or the one it had). */
function knownClientSetCookie(email: string, id: string, known: KnownClientKey): string {
  const attributes = ["Path=/api/auth", "HttpOnly", "SameSite=Strict", `Max-Age=${365 * 86_400}`, ...(known.secure ? ["Secure"] : [])];
  return `${knownClientCookie(email)}=${id}.${mac(known.key, email, id)}; ${attributes.join("; ")}`;
}

export interface AuthThrottle {
  /** A 429 when the request is over a limit (it must not reach Better Auth), else null. */
  refused: Response | null;
  /** Better Auth's answer as the client gets it: a successful sign-in gives its try back and is marked a known client. */
  settle(answer: Response): Promise<Response>;
}

const passThrough = async (answer: Response) => answer;

/** Judges a sign-in or sign-up before Better Auth sees it (other requests pass). */
export async function throttleAuth(store: ThrottleStore, request: Request, client: string, known: KnownClientKey): Promise<AuthThrottle> {
  const go = (settle = passThrough): AuthThrottle => ({ refused: null, settle });
  const stop = (refused: Response): AuthThrottle => ({ refused, settle: passThrough });
  if (request.method !== "POST") return go();
  const path = new URL(request.url).pathname;
  if (path === "/api/auth/sign-up/email") {
    const retryAfter = await count(store, SIGN_UP_PER_ADDRESS, client);
    return retryAfter === null ? go() : stop(overLimit(SIGN_UP_PER_ADDRESS, retryAfter));
  }
  if (path === "/api/auth/request-password-reset") {
    const retryAfter = await count(store, PASSWORD_RESET_PER_ADDRESS, client);
    return retryAfter === null ? go() : stop(overLimit(PASSWORD_RESET_PER_ADDRESS, retryAfter));
  }
  if (path !== "/api/auth/sign-in/email") return go();
  const email = await emailOf(request);
  const knownId = email ? knownClientId(request, email, known.key) : null;
  if (knownId === null) {
    const retryAfter = await count(store, SIGN_IN_PER_ADDRESS, client);
    if (retryAfter !== null) return stop(overLimit(SIGN_IN_PER_ADDRESS, retryAfter));
  }
  if (!email) return go();
  const subject = knownId === null ? `account:${email}` : `known:${email}:${knownId}`;
  const wait = await chargeBackoff(store, subject);
  if (wait !== null) return stop(slowedDown(wait, knownId !== null));
  return go(async (answer) => {
    if (!answer.ok) return answer;
    // The try was the account's own: it is not a failure (a key already forgotten is not made again).
    await store.redis.eval(REFUND_SCRIPT, 1, backoffKey(store, subject));
    const headers = new Headers(answer.headers);
    headers.append("set-cookie", knownClientSetCookie(email, knownId ?? randomBytes(18).toString("base64url"), known));
    return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
  });
}
