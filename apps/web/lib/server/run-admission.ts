// Before a run or a study is created: the workspace's rate of creations, its runs of the last 24 hours and its
// work under way must allow it. `limits` are the effective ones (scope.limits.get(): each the lower of the
// workspace's own and the instance's ceiling), so the messages name whichever binds.
import { limitPhrase, type WorkspaceLimits } from "@opsbench/core";
import type { WorkspaceScope } from "@opsbench/db";
import { ApiError } from "@/lib/api/errors";
import { assertRate } from "./rate-limit";

/** `newRuns`: the runs this creation adds (1 for a single run, a study's whole count). */
export async function admitNewWork(scope: WorkspaceScope, limits: WorkspaceLimits, newRuns = 1): Promise<void> {
  const today = await scope.limits.runsToday();
  if (today + newRuns > limits.maxRunsPerDay)
    throw new ApiError(
      "rate_limited",
      `${today} runs were created in the last 24 hours and this adds ${newRuns}; ${limitPhrase(limits, "maxRunsPerDay")}`,
    );
  await assertRate("run creations", scope.workspaceId, limits.runCreationsPerMinute);
  const active = await scope.limits.activeWork();
  if (active >= limits.maxConcurrentRuns)
    throw new ApiError("rate_limited", `${active} runs and studies are queued or under way; ${limitPhrase(limits, "maxConcurrentRuns")}`);
}
