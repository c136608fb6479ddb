// Before a run or a study is created: the workspace's rate of creations, its runs of the last 24 hours and its
// work under way must allow it, by the same checks a schedule's tick passes (workRefusal, packages/jobs). `limits`
// are the effective ones (scope.limits.get(): each the lower of the workspace's own and the instance's ceiling), so
// the messages name whichever binds.
import type { WorkspaceLimits } from "@opsbench/core";
import type { WorkspaceScope } from "@opsbench/db";
import { workRefusal } from "@opsbench/jobs";
import { ApiError } from "@/lib/api/errors";
import { RateLimited } from "./rate-limit";
import { getRateLimitRedis } from "./singletons";

/** `newRuns`: the runs this creation adds (1 for a single run, a study's whole count). */
export async function admitNewWork(scope: WorkspaceScope, limits: WorkspaceLimits, newRuns = 1): Promise<void> {
  const refused = await workRefusal(scope, limits, getRateLimitRedis(), newRuns);
  if (!refused) return;
  if (refused.retryAfterSeconds !== undefined)
    throw new RateLimited(`${refused.reason}; try again in ${refused.retryAfterSeconds} s`, refused.retryAfterSeconds);
  throw new ApiError("rate_limited", refused.reason);
}
