// "run.failed" (docs/notifications.md): told once the FAILED status is written, wherever a run ends so (the pipeline's
// end, an interrupted run the reconciler ends, a run with nothing to deploy); "change.detected" once a run that
// succeeded confirms a change in its series; and a run that succeeded goes to the workspace's results exporters
// (docs/exports.md). Best effort: a notification that cannot be queued is logged and never
// changes how the run ended.
import type { Logger } from "../logger";
import type { PipelineDeps } from "./run-context";

export async function tellRunFailed(deps: Pick<PipelineDeps, "notifier">, runId: string, log: Logger): Promise<void> {
  if (!deps.notifier) return;
  try {
    await deps.notifier.runFailed(runId);
  } catch (err) {
    log.warn({ err, runId }, "could not queue the run.failed notification");
  }
}

export async function tellNewChanges(deps: Pick<PipelineDeps, "notifier">, runId: string, log: Logger): Promise<void> {
  if (!deps.notifier) return;
  try {
    await deps.notifier.newChanges(runId);
  } catch (err) {
    log.warn({ err, runId }, "could not look for the run's series changes to tell");
  }
}

export async function tellExporters(deps: Pick<PipelineDeps, "notifier">, runId: string, log: Logger): Promise<void> {
  if (!deps.notifier) return;
  try {
    await deps.notifier.exportRun(runId);
  } catch (err) {
    log.warn({ err, runId }, "could not queue the run's results export");
  }
}
