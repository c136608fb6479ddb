/** The run's status machine (the Run row is the truth; see docs/architecture.md). */
export const RUN_STATUSES = ["QUEUED", "PROVISIONING", "RUNNING", "ANALYZING", "SUCCEEDED", "FAILED", "ABORTED"] as const;
export type RunStatusName = (typeof RUN_STATUSES)[number];
export const FINAL_RUN_STATUSES: readonly RunStatusName[] = ["SUCCEEDED", "FAILED", "ABORTED"];
export const isFinalRunStatus = (s: string) => (FINAL_RUN_STATUSES as readonly string[]).includes(s);
export const STEP_NAMES = ["PROVISION", "BASELINE", "LOAD", "COLLECT", "ANALYZE", "TEARDOWN"] as const;
export type StepNameValue = (typeof STEP_NAMES)[number];
