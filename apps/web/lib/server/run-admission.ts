// Before a run or a study is created: the workspace's rate of creations and its work under way must allow it.
import type { WorkspaceLimits } from "@opsbench/core";
import type { WorkspaceScope } from "@opsbench/db";
import { ApiError } from "@/lib/api/errors";
import { assertRate } from "./rate-limit";

export async function admitNewWork(scope: WorkspaceScope, limits: WorkspaceLimits): Promise<void> {
  await assertRate("run creations", scope.workspaceId, limits.runCreationsPerMinute);
  const active = await scope.limits.activeWork();
  if (active >= limits.maxConcurrentRuns)
    throw new ApiError(
      "rate_limited",
      `${active} runs and studies are queued or under way; the workspace's limit maxConcurrentRuns is ${limits.maxConcurrentRuns}`,
    );
}
