import { type LoadPoint, loadProfile, plannedSeconds, workloadSpec } from "@opsbench/core";
import { useMemo } from "react";
import { fmtDuration } from "@/lib/format";
import { fmtClock, LoadProfileChart, type ProfileSeries } from "@/features/workloads/load-profile-chart";
import type { BuiltWorkloads, WorkloadFormMode } from "./built-workloads";

/** Beside the workload form: the load profile drawn before saving, the planned time, and the JSON that will be saved. */
export function WorkloadPreview({ mode, built }: { mode: WorkloadFormMode; built: BuiltWorkloads }) {
  const series: ProfileSeries[] = useMemo(() => {
    if (mode === "script" || built.problems.length > 0) return [];
    const out: ProfileSeries[] = [];
    for (const w of built.workloads) {
      const r = workloadSpec.safeParse(w.spec);
      if (r.success) out.push({ label: w.name || "workload", points: loadProfile(r.data) as LoadPoint[] });
    }
    return out;
  }, [mode, built]);

  const planned = useMemo(() => {
    const first = built.workloads[0];
    if (!first || mode === "script" || built.problems.length) return null;
    const r = workloadSpec.safeParse(first.spec);
    return r.success ? { seconds: plannedSeconds(r.data), kind: r.data.kind } : null;
  }, [built, mode]);

  return (
    <div className="min-w-0 space-y-3">
      <LoadProfileChart
        series={series}
        note={
          mode === "script"
            ? "A script's own options set its load; opsbench does not draw it."
            : built.problems.length > 0
              ? "Fix the fields to see the profile."
              : planned?.kind === "shared-iterations"
                ? "Ends when all its requests are done (at most its max duration)."
                : undefined
        }
      />
      {built.problems.length > 0 && mode !== "script" && (
        <ul
          data-testid="workload-problems"
          className="space-y-0.5 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-2xs text-amber-900"
        >
          {built.problems.slice(0, 8).map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {planned && (
        <p className="text-xs text-zinc-600">
          Planned load:{" "}
          <b data-testid="planned-seconds" data-seconds={planned.seconds}>
            {planned.seconds > 0
              ? `${planned.kind === "shared-iterations" ? "at most " : ""}${fmtClock(planned.seconds)} (${fmtDuration(planned.seconds * 1000)})`
              : "—"}
          </b>
          {built.workloads.length > 1 && <> each, {built.workloads.length} workloads</>}
        </p>
      )}
      {mode !== "script" && built.workloads.length > 0 && built.problems.length === 0 && (
        <details className="rounded-md border border-zinc-200 bg-white">
          <summary className="cursor-pointer px-3 py-1.5 text-xs text-zinc-600">The spec that will be saved (JSON)</summary>
          <pre
            data-testid="workload-spec-json"
            className="max-h-80 overflow-auto border-t border-zinc-100 px-3 py-2 font-mono text-2xs leading-4 text-zinc-700"
          >
            {JSON.stringify(built.workloads.length === 1 ? built.workloads[0]!.spec : built.workloads, null, 2)}
          </pre>
        </details>
      )}
    </div>
  );
}
