/** The run's status machine (the Run row is the truth, the queue only delivers; see docs/architecture.md). */
export const RUN_STATUSES = ["QUEUED", "PROVISIONING", "RUNNING", "ANALYZING", "SUCCEEDED", "FAILED", "ABORTED"] as const;
export type RunStatusName = (typeof RUN_STATUSES)[number];
/** Statuses a run (and a study: the same three) never leaves. */
export const FINAL_RUN_STATUSES: readonly RunStatusName[] = ["SUCCEEDED", "FAILED", "ABORTED"];
export const isFinalRunStatus = (s: string) => (FINAL_RUN_STATUSES as readonly string[]).includes(s);
/** Started and not yet final: provisioning, loading or analysing. */
export const isRunInProgress = (s: string) => s !== "QUEUED" && !isFinalRunStatus(s);
/** A study is final in the same three statuses as a run. */
export const isFinalStudyStatus = isFinalRunStatus;
/** The study is final and so is every one of its runs (nothing will change any more). */
export const isStudySettled = (s: { status: string; runs: ReadonlyArray<{ status: string }> }) =>
  isFinalStudyStatus(s.status) && s.runs.every((r) => isFinalRunStatus(r.status));

export interface RunStatusCounts {
  total: number;
  finished: number;
  succeeded: number;
  failed: number;
  aborted: number;
}

/** How many runs are in each final status. */
export function runStatusCounts(runs: ReadonlyArray<{ status: string }>): RunStatusCounts {
  const count = (status: RunStatusName) => runs.filter((r) => r.status === status).length;
  const succeeded = count("SUCCEEDED");
  const failed = count("FAILED");
  const aborted = count("ABORTED");
  return { total: runs.length, finished: succeeded + failed + aborted, succeeded, failed, aborted };
}

export const STEP_NAMES = ["PROVISION", "BASELINE", "LOAD", "COLLECT", "ANALYZE", "TEARDOWN"] as const;
export type StepNameValue = (typeof STEP_NAMES)[number];
