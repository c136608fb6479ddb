// Whether a workspace's limits let one more piece of work start now, for work no request asks for (a schedule's
// tick): the same three checks, in the same order and with the same counters, as the API's admission of a run or
// study (apps/web/lib/server/run-admission.ts): runs of the last 24 hours, run creations a minute (the same Redis
// counter, so ticks and requests count together), and work queued or under way. It answers why not, or null.
import { limitPhrase, type WorkspaceLimits } from "@opsbench/core";
import type { WorkspaceScope } from "@opsbench/db";
import type { Redis } from "ioredis";

const WINDOW_SECONDS = 60;

/** Why the workspace may not start `newRuns` more runs now, or null when it may. */
export async function workRefusal(scope: WorkspaceScope, limits: WorkspaceLimits, redis: Redis, newRuns = 1): Promise<string | null> {
  const today = await scope.limits.runsToday();
  if (today + newRuns > limits.maxRunsPerDay)
    return `${today} runs were created in the last 24 hours and this adds ${newRuns}; ${limitPhrase(limits, "maxRunsPerDay")}`;
  // The API's counter (rate-limit.ts): a window from the first creation, a minute long.
  const key = `opsbench:rate:run creations:${scope.workspaceId}`;
  const answer = await redis.multi().set(key, 0, "EX", WINDOW_SECONDS, "NX").incr(key).exec();
  const count = Number(answer?.[1]?.[1] ?? 0);
  if (count > limits.runCreationsPerMinute) return `more than ${limits.runCreationsPerMinute} run creations a minute`;
  const active = await scope.limits.activeWork();
  if (active >= limits.maxConcurrentRuns)
    return `${active} runs and studies are queued or under way; ${limitPhrase(limits, "maxConcurrentRuns")}`;
  return null;
}
