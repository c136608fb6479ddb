// A failed run's page leads with why it failed and what to try: the step that failed, its error in a sentence,
// and the usual fix for that step; the whole error stays one click away.
import type { RunView } from "@opsbench/db";

/** What usually fixes a failure at each step (core's STEP_NAMES). */
const FIX_BY_STEP: Record<string, string> = {
  PROVISION:
    "Check the target: its image, port and health path, its credentials, and for an endpoint target the load-host policy (an address the admin has not allowed is refused). Then repeat the run.",
  BASELINE: "The target did not settle to its minimum replicas or instances: give it longer, or lower its minimum, then repeat the run.",
  LOAD: "Check the workload: run its script with k6 locally, make it send its requests to __ENV.OPSBENCH_BASE_URL, and keep it within the workspace's limits. k6's own output is in the events below.",
  COLLECT: "The checks after the load could not run: check that the target still answers after the load, then repeat the run.",
  ANALYZE: "The results could not be analysed: repeat the run; if it fails again, report it with the events below.",
  TEARDOWN: "The target was not torn down cleanly: check that nothing of it is left running on its provider.",
};
const FIX_BEFORE_ANY_STEP =
  "The run never reached a step: check that a worker is running (`opsbench worker`) and that the target and workload still exist, then repeat the run.";

/** The error's first sentence or line, for reading; the full text is shown below it. */
export function errorInWords(error: string): string {
  const line = error.trim().split("\n")[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 297)}…` : line;
}

/** The step that failed: the first FAILED one in run order, else none (the run failed before or between steps). */
const failedStep = (steps: RunView["steps"]) => steps.find((s) => s.status === "FAILED") ?? null;

export function RunFailure({ run }: { run: Pick<RunView, "status" | "error" | "steps"> }) {
  if (run.status !== "FAILED") return null;
  const step = failedStep(run.steps);
  const error = run.error ?? step?.error ?? null;
  return (
    <section data-testid="run-failure" className="mt-3 rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900">
      <h2 className="font-semibold">
        {step ? (
          <>
            Failed at step <span data-testid="run-failed-step">{step.name}</span>
          </>
        ) : (
          "Failed before any step ran"
        )}
      </h2>
      {error && (
        <p data-testid="run-failure-cause" className="mt-1">
          {errorInWords(error)}
        </p>
      )}
      <p data-testid="run-failure-fix" className="mt-2 text-red-950">
        <span className="font-medium">What to try: </span>
        {step ? (FIX_BY_STEP[step.name] ?? FIX_BEFORE_ANY_STEP) : FIX_BEFORE_ANY_STEP}
      </p>
      {error && error.trim() !== errorInWords(error) && (
        <details className="mt-2">
          <summary className="cursor-pointer text-xs text-red-800">the whole error</summary>
          <pre data-testid="run-error" className="mt-1 whitespace-pre-wrap break-words font-mono text-xs text-red-800">
            {error}
          </pre>
        </details>
      )}
    </section>
  );
}
