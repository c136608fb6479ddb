// Password guessing against sign-in (issue 20): throttled per account and per client address, counted in Redis, in
// every mode (not only NODE_ENV=production), and X-Forwarded-For is believed only from a trusted proxy
// (OPSBENCH_TRUSTED_PROXIES). A request over a limit answers 429 with Retry-After and says which limit.
import { Redis } from "ioredis";
import { beforeAll, describe, expect, it } from "vitest";
import { SIGN_IN_PER_ACCOUNT, throttleAuth } from "../../apps/web/lib/server/auth-throttle";
import { fileServices, useWeb } from "../file-services";
import { startSignedInWeb, type TestIdentity } from "../test-identity";
import { call } from "./auth-http";

let web = "";
let owner: TestIdentity;

beforeAll(async () => {
  ({ web, owner } = await startSignedInWeb());
});

const signIn = (email: string, password: string, headers: Record<string, string> = {}) =>
  call(web, "POST", "/api/auth/sign-in/email", { body: { email, password }, headers });

function expectThrottled(res: Awaited<ReturnType<typeof call>>, what: string) {
  expect(res.status, res.text).toBe(429);
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(600);
  expect((res.json as { message: string }).message).toContain(`Too many ${what}`);
  expect((res.json as { message: string }).message).toContain(`Try again in ${retryAfter} s`);
}

describe("sign-in throttling", () => {
  it("throttles per account, whatever X-Forwarded-For the client sends (10 tries in 10 minutes)", async () => {
    for (let i = 0; i < 10; i++) {
      const res = await signIn(owner.email, `wrong-password-${i}`, { "x-forwarded-for": `198.51.100.${i + 1}` });
      expect(res.status, res.text).toBe(401);
    }
    expectThrottled(
      await signIn(owner.email, "wrong-password-x", { "x-forwarded-for": "198.51.100.77" }),
      "sign-in attempts for this account",
    );
    // Even the right password waits: the guesser cannot tell it found it.
    expectThrottled(await signIn(owner.email, owner.password), "sign-in attempts for this account");
    // Another account from the same address is not locked by this one.
    expect((await signIn("someone-else@hostile.test", "wrong-password")).status).toBe(401);
  });

  it("throttles per client address across accounts; a client's X-Forwarded-For is ignored", async () => {
    // 11 attempts were made from this address above (the 12th and 13th were refused before counting per account).
    let answered = 0;
    let res: Awaited<ReturnType<typeof call>> | null = null;
    for (let i = 0; i < 40; i++) {
      res = await signIn(`guess-${i}@hostile.test`, "wrong-password", { "x-forwarded-for": `203.0.113.${i + 1}` });
      if (res.status === 429) break;
      expect(res.status, res.text).toBe(401);
      answered++;
    }
    expect(answered).toBeLessThan(30);
    expect(res).not.toBeNull();
    expectThrottled(res as Awaited<ReturnType<typeof call>>, "sign-in attempts from your address");
  });

  it("counts in Redis and regardless of NODE_ENV (here: the test process's own, not production)", async () => {
    expect(process.env.NODE_ENV).not.toBe("production");
    const redis = new Redis(fileServices().redisUrl, { maxRetriesPerRequest: 3 });
    try {
      const store = { redis, prefix: fileServices().name };
      const attempt = () =>
        throttleAuth(
          store,
          new Request("http://127.0.0.1/api/auth/sign-in/email", {
            method: "POST",
            body: JSON.stringify({ email: "in-process@hostile.test" }),
          }),
          "192.0.2.50",
        );
      for (let i = 0; i < 10; i++) expect(await attempt()).toBeNull();
      const refused = await attempt();
      expect(refused?.status).toBe(429);
      expect(refused?.headers.get("retry-after")).toMatch(/^\d+$/);
      // The window began at the first attempt (seconds ago), not at a clock-aligned boundary a burst could straddle.
      expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(SIGN_IN_PER_ACCOUNT.windowSeconds - 30);
      // The count is in Redis, under the file's prefix.
      expect((await redis.keys(`${fileServices().name}:auth-throttle:*in-process@hostile.test*`)).length).toBe(1);
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
    let res: Awaited<ReturnType<typeof call>> | null = null;
    for (let i = 0; i < 40; i++) {
      res = await signIn(`proxied-${i}@hostile.test`, "wrong-password", client);
      if (res.status === 429) break;
      answered++;
    }
    // 127.0.0.1's own count (over its limit above) does not matter: the client is 192.0.2.7.
    expect(answered).toBe(30);
    expectThrottled(res as Awaited<ReturnType<typeof call>>, "sign-in attempts from your address");
    // Another client behind the same proxy is its own.
    const other = await signIn("proxied-other@hostile.test", "wrong-password", { "x-forwarded-for": "192.0.2.8" });
    expect(other.status, other.text).toBe(401);
  });
});
