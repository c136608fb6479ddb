// Fixed-window rate limits kept in Redis, so every web process counts together. Run creation uses it; sign-in
// (accounts) is meant to call `assertRate("sign-in", <client address>, N)` the same way.
import { ApiError } from "@/lib/api/errors";
import { getRateLimitRedis } from "./singletons";

const WINDOW_SECONDS = 60;

/** Counts one action of `subject` under `name`; a 429 once more than `perMinute` fell in the current minute. */
export async function assertRate(name: string, subject: string, perMinute: number): Promise<void> {
  const window = Math.floor(Date.now() / 1000 / WINDOW_SECONDS);
  const key = `opsbench:rate:${name}:${subject}:${window}`;
  const redis = getRateLimitRedis();
  const [[, count]] = (await redis
    .multi()
    .incr(key)
    .expire(key, WINDOW_SECONDS * 2)
    .exec()) ?? [[null, 0]];
  if (Number(count) > perMinute) {
    const retryAfter = WINDOW_SECONDS - (Math.floor(Date.now() / 1000) % WINDOW_SECONDS);
    throw new ApiError("rate_limited", `more than ${perMinute} ${name} a minute; try again in ${retryAfter} s`);
  }
}
