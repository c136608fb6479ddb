// Rate limits per workspace a minute, counted by the one limiter (packages/jobs rate-window.ts, the sign-in throttle's
// and run admission's too): script checks here. Over it: 429 with Retry-After and a message.
import { countInWindow, PER_MINUTE_SECONDS, rateKey } from "@opsbench/jobs";
import { ApiError } from "@/lib/api/errors";
import { getRateLimitRedis } from "./singletons";

/** A 429 that says when to try again (Retry-After), beside the message. */
export class RateLimited extends ApiError {
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
  const retryAfter = await countInWindow(getRateLimitRedis(), rateKey(name, subject), {
    max: perMinute,
    windowSeconds: PER_MINUTE_SECONDS,
  });
  if (retryAfter !== null) throw new RateLimited(`more than ${perMinute} ${what}; try again in ${retryAfter} s`, retryAfter);
}
