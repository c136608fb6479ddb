// How far a study is and when it will be done: the remaining runs' planned
// load time plus a per-run overhead (deploy, baseline, teardown; measured from
// the study's finished runs when there are any) plus the cool-downs still ahead.
import { isFinalRunStatus, runStatusCounts, type RunStatusCounts } from "../runs/run-status";
import { plannedSeconds, type WorkloadSpec } from "../workloads/workload-spec";

/** Assumed deploy + baseline + analyse + teardown time of a run until one has been measured. */
export const DEFAULT_RUN_OVERHEAD_SECONDS = 10;

/** A run's planned load seconds; 0 when its spec is missing or cannot be planned (a bad row must not stop the estimate). */
export function plannedLoadSeconds(spec: WorkloadSpec | null): number {
  if (!spec) return 0;
  try {
    return plannedSeconds(spec);
  } catch {
    return 0;
  }
}

export interface ProgressRun {
  status: string;
  /** Planned load seconds of the run's workload. */
  plannedSeconds: number;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export interface StudyProgress extends RunStatusCounts {
  /** Seconds until the study is expected to finish; null once it is final. */
  etaSeconds: number | null;
  /** Per-run overhead used for the estimate. */
  overheadSeconds: number;
}

export function studyProgress(
  runs: readonly ProgressRun[],
  opts: { cooldownSeconds: number; studyFinal: boolean; now: Date },
): StudyProgress {
  const finished = runs.filter((r) => isFinalRunStatus(r.status));
  const measured = finished
    .filter((r) => r.status === "SUCCEEDED" && r.startedAt && r.finishedAt)
    .map((r) => (r.finishedAt!.getTime() - r.startedAt!.getTime()) / 1000 - r.plannedSeconds);
  const overheadSeconds = measured.length
    ? Math.max(0, measured.reduce((a, b) => a + b, 0) / measured.length)
    : DEFAULT_RUN_OVERHEAD_SECONDS;
  let etaSeconds: number | null = null;
  if (!opts.studyFinal) {
    const pending = runs.filter((r) => !isFinalRunStatus(r.status));
    etaSeconds = 0;
    for (const r of pending) {
      const whole = r.plannedSeconds + overheadSeconds;
      // A run under way counts only what is left of it.
      const elapsed = r.startedAt && r.status !== "QUEUED" ? (opts.now.getTime() - r.startedAt.getTime()) / 1000 : 0;
      etaSeconds += Math.max(0, whole - elapsed);
    }
    const notStarted = pending.filter((r) => r.status === "QUEUED").length;
    // One cool-down before each run not yet started, except the very first run of the study.
    const cooldowns = finished.length === 0 && pending.every((r) => r.status === "QUEUED") ? Math.max(0, notStarted - 1) : notStarted;
    etaSeconds = Math.round(etaSeconds + cooldowns * opts.cooldownSeconds);
  }
  return {
    ...runStatusCounts(runs),
    etaSeconds,
    overheadSeconds: Math.round(overheadSeconds * 10) / 10,
  };
}
