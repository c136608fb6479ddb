import type { Scaling } from "./target-spec";
import type { SpecInputs } from "./spec-inputs";

/** A local service's replicas: a fixed number, or min/max with a CPU autoscaler. */
export function ReplicaFields({ scaling, onScaling, inputs }: { scaling: Scaling; onScaling: (s: Scaling) => void; inputs: SpecInputs }) {
  const { num } = inputs;
  return (
    <fieldset className="space-y-2 border-t border-zinc-100 pt-3">
      <legend className="text-xs font-semibold text-zinc-700">Replicas</legend>
      <div className="flex gap-4 text-xs">
        {(["fixed", "autoscaled"] as const).map((m) => (
          <label key={m} className="inline-flex items-center gap-1.5">
            <input type="radio" name="scaling" value={m} checked={scaling === m} onChange={() => onScaling(m)} />
            {m === "fixed" ? "a fixed number" : "min/max with a CPU autoscaler (like an HPA)"}
          </label>
        ))}
      </div>
      <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
        {scaling === "fixed" ? (
          num("Replicas", "replicas", "replicas", { step: "1" })
        ) : (
          <>
            {num("Min replicas", "minReplicas", "minReplicas", { step: "1", placeholder: "1" })}
            {num("Max replicas", "maxReplicas", "maxReplicas", { step: "1", placeholder: "4" })}
            {num("Target CPU %", "targetCpuPercent", "autoscaler.targetCpuPercent", { step: "1", hint: "of the CPU request" })}
            {num("Sync period (ms)", "syncPeriodMs", "autoscaler.syncPeriodMs", {
              step: "1",
              placeholder: "15000",
              hint: "HPA: 15 s",
            })}
            {num("Scale-down window (ms)", "scaleDownStabilizationMs", "autoscaler.scaleDownStabilizationMs", {
              step: "1",
              placeholder: "300000",
              hint: "stabilization; HPA: 5 min",
            })}
            {num("Scale-up window (ms)", "scaleUpStabilizationMs", "autoscaler.scaleUpStabilizationMs", {
              step: "1",
              placeholder: "0",
            })}
            {num("Tolerance", "tolerance", "autoscaler.tolerance", { placeholder: "0.1", hint: "no change within ±10%" })}
          </>
        )}
      </div>
    </fieldset>
  );
}
