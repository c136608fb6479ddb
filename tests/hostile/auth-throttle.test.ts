// Password guessing against sign-in (issue 20, then the review's finding 6): throttled per client address and, per
// account, by delays that grow rather than a wall, counted in Redis, in every mode (not only NODE_ENV=production);
// X-Forwarded-For is believed only from a trusted proxy (OPSBENCH_TRUSTED_PROXIES). On the first version 11 wrong
// passwords from one client locked the owner out of every browser for 10 minutes (429, Retry-After 593): now a
// browser that signed in before is not held up by anyone else's failures, while the guesser waits longer each time.
import { Redis } from "ioredis";
import { beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { SIGN_IN_BACKOFF, throttleAuth } from "../../apps/web/lib/server/auth-throttle";
import { countInWindow, PER_MINUTE_SECONDS, rateKey } from "@opsbench/jobs";
import { fileServices, useWeb } from "../file-services";
import { startSignedInWeb, type TestIdentity } from "../test-identity";
import { type Answer, call } from "./auth-http";

let web = "";
let owner: TestIdentity;

beforeAll(async () => {
  ({ web, owner } = await startSignedInWeb());
});

const signIn = (email: string, password: string, headers: Record<string, string> = {}, cookie?: string) =>
  call(web, "POST", "/api/auth/sign-in/email", { body: { email, password }, headers, cookie });

const retryAfterOf = (res: Answer) => Number(res.headers.get("retry-after"));
const messageOf = (res: Answer) => (res.json as { message: string }).message;

function expectThrottled(res: Answer, what: string, maxSeconds = 600) {
  expect(res.status, res.text).toBe(429);
  const retryAfter = retryAfterOf(res);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
  expect(messageOf(res)).toContain(`Too many ${what}`);
  expect(messageOf(res)).toContain(`Try again in ${retryAfter} s`);
}

const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

describe("sign-in throttling", () => {
  it("slows a guesser with growing delays without locking the owner out of a browser that signed in before", async () => {
    // The owner's browser signed in once: it is a known client of the account from then on.
    const browser = await signIn(owner.email, owner.password);
    expect(browser.status, browser.text).toBe(200);
    const knownClient = browser.cookie.split("; ").find((c) => c.startsWith("opsbench-known-"));
    expect(knownClient).toBeDefined();
    expect(browser.headers.getSetCookie().find((c) => c.startsWith("opsbench-known-"))).toMatch(/HttpOnly/);

    // The review's guesser: 11 wrong passwords, whatever X-Forwarded-For it sends. The first 5 go straight through;
    // after them each try must wait for the delay the one before set, and the delays double.
    const waits: number[] = [];
    let wrong = 0;
    while (wrong < 11) {
      const res = await signIn(owner.email, `wrong-password-${wrong}`, { "x-forwarded-for": `198.51.100.${wrong + 1}` });
      if (res.status === 429) {
        expectThrottled(res, "failed sign-ins for this account", SIGN_IN_BACKOFF.maxDelaySeconds);
        waits.push(retryAfterOf(res));
        await sleep(retryAfterOf(res));
        continue;
      }
      expect(res.status, res.text).toBe(401);
      wrong++;
    }
    expect(waits.length).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThan(waits[i - 1]!);
    // The 12th try waits longer again (the last delay doubled), and the right password from an unknown client waits
    // too: the guesser cannot tell it found it.
    const twelfth = await signIn(owner.email, "wrong-password-x", { "x-forwarded-for": "198.51.100.77" });
    expectThrottled(twelfth, "failed sign-ins for this account", SIGN_IN_BACKOFF.maxDelaySeconds);
    expect(retryAfterOf(twelfth)).toBeGreaterThan(waits.at(-1)!);
    expectThrottled(await signIn(owner.email, owner.password), "failed sign-ins for this account");

    // The owner's browser, with the right password, is in at once (the review saw 429, Retry-After 593).
    const owners = await signIn(owner.email, owner.password, {}, knownClient);
    expect(owners.status, owners.text).toBe(200);
    expect(owners.cookie).toContain("session_token=");
    // A forged or other account's known-client cookie is no way around the delay.
    const forged = knownClient!.replace(/\.[^.]+$/, ".forged-signature-0000000000000000000000000");
    expectThrottled(await signIn(owner.email, owner.password, {}, forged), "failed sign-ins for this account");
    // ...and the guesser is still held.
    expectThrottled(await signIn(owner.email, "wrong-password-y"), "failed sign-ins for this account");
    // Another account from the same address is not slowed by this one.
    expect((await signIn("someone-else@hostile.test", "wrong-password")).status).toBe(401);
  });

  it("throttles per client address across accounts; a client's X-Forwarded-For is ignored", async () => {
    // Some attempts were made from this address above; the count goes on.
    let answered = 0;
    let res: Answer | null = null;
    for (let i = 0; i < 40; i++) {
      res = await signIn(`guess-${i}@hostile.test`, "wrong-password", { "x-forwarded-for": `203.0.113.${i + 1}` });
      if (res.status === 429) break;
      expect(res.status, res.text).toBe(401);
      answered++;
    }
    expect(answered).toBeLessThan(30);
    expect(res).not.toBeNull();
    expectThrottled(res as Answer, "sign-in attempts from your address");
  });

  it("counts in Redis and regardless of NODE_ENV (here: the test process's own, not production)", async () => {
    expect(process.env.NODE_ENV).not.toBe("production");
    const redis = new Redis(fileServices().redisUrl, { maxRetriesPerRequest: 3 });
    try {
      const store = { redis, prefix: fileServices().name };
      const known = { key: Buffer.from("in-process-test-key"), secure: false };
      const email = "in-process@hostile.test";
      const attempt = (cookie = "") =>
        throttleAuth(
          store,
          new Request("http://127.0.0.1/api/auth/sign-in/email", {
            method: "POST",
            body: JSON.stringify({ email }),
            headers: cookie ? { cookie } : {},
          }),
          "192.0.2.50",
          known,
        );
      for (let i = 0; i <= SIGN_IN_BACKOFF.freeFailures; i++) expect((await attempt()).refused).toBeNull();
      const refused = (await attempt()).refused;
      expect(refused?.status).toBe(429);
      expect(refused?.headers.get("retry-after")).toBe(String(SIGN_IN_BACKOFF.firstDelaySeconds));
      // The count is in Redis, under the file's prefix.
      expect((await redis.keys(`${fileServices().name}:auth-throttle:*in-process@hostile.test*`)).length).toBe(1);
      // A successful sign-in through the held account's delay is impossible from here; one from a known client
      // (the cookie a success set) goes through at once.
      await new Promise((r) => setTimeout(r, SIGN_IN_BACKOFF.firstDelaySeconds * 1000 + 100));
      const passed = await attempt();
      expect(passed.refused).toBeNull();
      const answered = await passed.settle(Response.json({ ok: true }));
      const cookie = answered.headers.getSetCookie()[0]?.split(";")[0] ?? "";
      expect(cookie).toMatch(/^opsbench-known-[0-9a-f]{16}=[\w-]+\.[\w-]+$/);
      expect((await attempt()).refused?.status).toBe(429);
      expect((await attempt(cookie)).refused).toBeNull();
    } finally {
      redis.disconnect();
    }
  });

  it("believes X-Forwarded-For from a trusted proxy only (OPSBENCH_TRUSTED_PROXIES)", async () => {
    // The same server, now behind a proxy on 127.0.0.1 that appends the client's address.
    web = await useWeb({ auth: "required", env: { OPSBENCH_TRUSTED_PROXIES: "127.0.0.1/32, ::1" } });
    // The client forged an entry; the proxy appended the address it saw (192.0.2.7).
    const client = { "x-forwarded-for": "forged-by-client, 192.0.2.7" };
    let answered = 0;
    let res: Answer | null = null;
    for (let i = 0; i < 40; i++) {
      res = await signIn(`proxied-${i}@hostile.test`, "wrong-password", client);
      if (res.status === 429) break;
      answered++;
    }
    // 127.0.0.1's own count (over its limit above) does not matter: the client is 192.0.2.7.
    expect(answered).toBe(30);
    expectThrottled(res as Answer, "sign-in attempts from your address");
    // Another client behind the same proxy is its own.
    const other = await signIn("proxied-other@hostile.test", "wrong-password", { "x-forwarded-for": "192.0.2.8" });
    expect(other.status, other.text).toBe(401);
  });
});

// Run creation counts through the sign-in throttle's limiter (rate-window.ts). It used clock-aligned minutes: three
// creations at :59 and three more at :00 all passed a limit of three. Now the window starts at the first creation.
describe("run creation's rate window", () => {
  it("starts at the first creation, so a burst across a minute's turn gets the limit once", async () => {
    const redis = new Redis(fileServices().redisUrl);
    try {
      const key = rateKey("run creations", `workspace-${randomUUID()}`);
      const limit = { max: 3, windowSeconds: PER_MINUTE_SECONDS };
      for (let i = 0; i < limit.max; i++) expect(await countInWindow(redis, key, limit)).toBeNull();
      const retryAfter = await countInWindow(redis, key, limit);
      // A clock-aligned window would end at the next minute's turn (60 s minus the seconds into this minute) and let
      // the next three through then; this one ends a full window after the first creation, whenever that was.
      expect(retryAfter).toBeGreaterThanOrEqual(PER_MINUTE_SECONDS - 2);
      expect(retryAfter).toBeLessThanOrEqual(PER_MINUTE_SECONDS);
      expect(await redis.ttl(key)).toBeGreaterThanOrEqual(PER_MINUTE_SECONDS - 2);
      // Still refused on the next try, with the window counting down, not restarting.
      const again = await countInWindow(redis, key, limit);
      expect(again).not.toBeNull();
      expect(again).toBeLessThanOrEqual(retryAfter ?? 0);
    } finally {
      redis.disconnect();
    }
  });
});
