// Whether a workspace's limits let one more piece of work start now, for the API (a run, a study or an import a
// request asks for: apps/web/lib/server/run-admission.ts) and for work no request asks for (a schedule's tick), so
// both apply the same three checks, in the same order, with the same counters: runs of the last 24 hours, run
// creations a minute (the one limiter, rate-window.ts: ticks and requests count together), and work queued or under
// way. It answers why not, or null.
import { limitPhrase, type WorkspaceLimits } from "@opsbench/core";
import type { WorkspaceScope } from "@opsbench/db";
import type { Redis } from "ioredis";
import { countInWindow, PER_MINUTE_SECONDS, rateKey } from "./rate-window";

export interface WorkRefusal {
  reason: string;
  /** When the refusal is the rate of creations: the seconds until its window ends. */
  retryAfterSeconds?: number;
}

/** Why the workspace may not start `newRuns` more runs now, or null when it may. */
export async function workRefusal(scope: WorkspaceScope, limits: WorkspaceLimits, redis: Redis, newRuns = 1): Promise<WorkRefusal | null> {
  const today = await scope.limits.runsToday();
  if (today + newRuns > limits.maxRunsPerDay)
    return { reason: `${today} runs were created in the last 24 hours and this adds ${newRuns}; ${limitPhrase(limits, "maxRunsPerDay")}` };
  const retryAfter = await countInWindow(redis, rateKey("run creations", scope.workspaceId), {
    max: limits.runCreationsPerMinute,
    windowSeconds: PER_MINUTE_SECONDS,
  });
  if (retryAfter !== null)
    return { reason: `more than ${limits.runCreationsPerMinute} run creations a minute`, retryAfterSeconds: retryAfter };
  const active = await scope.limits.activeWork();
  if (active >= limits.maxConcurrentRuns)
    return { reason: `${active} runs and studies are queued or under way; ${limitPhrase(limits, "maxConcurrentRuns")}` };
  return null;
}
