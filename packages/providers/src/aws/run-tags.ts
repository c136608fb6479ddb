// Every AWS resource of a run carries the tag opsbench:run=<run id>, so teardown and
// the reaper find them by tag, not only by the ids a deploy got to record.
import { RUN_TAG_KEY } from "@opsbench/core";

export const runTags = (runId: string) => [{ Key: RUN_TAG_KEY, Value: runId }];
export const hasRunTag = (tags: Array<{ Key?: string; Value?: string }> | undefined, runId: string) =>
  (tags ?? []).some((t) => t.Key === RUN_TAG_KEY && t.Value === runId);
