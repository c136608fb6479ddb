// Rate limits kept in Redis, so every web process counts together: run creations and script checks per workspace.
// A window starts at a subject's first action and lasts a minute (the key's TTL), as the sign-in throttle's do: with
// clock-aligned windows a burst across a boundary got twice the limit. Over it: 429 with Retry-After and a message.
import { ApiError } from "@/lib/api/errors";
import { getRateLimitRedis } from "./singletons";

const WINDOW_SECONDS = 60;

/** A 429 that says when to try again (Retry-After), beside the message. */
class RateLimited extends ApiError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super("rate_limited", message);
  }
  override toResponse() {
    const res = super.toResponse();
    res.headers.set("retry-after", String(this.retryAfterSeconds));
    return res;
  }
}

/**
 * Counts one action of `subject` under `name`; a 429 once more than `perMinute` fell in the subject's window.
 * `what` names the actions in the message (default: `name`).
 */
export async function assertRate(name: string, subject: string, perMinute: number, what = `${name} a minute`): Promise<void> {
  const key = `opsbench:rate:${name}:${subject}`;
  const answer = await getRateLimitRedis().multi().set(key, 0, "EX", WINDOW_SECONDS, "NX").incr(key).ttl(key).exec();
  const count = Number(answer?.[1]?.[1] ?? 0);
  if (count > perMinute) {
    const retryAfter = Math.max(1, Number(answer?.[2]?.[1] ?? WINDOW_SECONDS));
    throw new RateLimited(`more than ${perMinute} ${what}; try again in ${retryAfter} s`, retryAfter);
  }
}
