import { PLACEMENTS } from "@opsbench/core";
import { FormSection } from "./form-section";
import { ReplicaFields } from "./replica-fields";
import type { SpecInputs } from "./spec-inputs";
import type { Scaling } from "./target-spec";

/** The local-service kind's fields: replicas, per-replica resources, placement and network. */
export function ServiceFields({ scaling, onScaling, inputs }: { scaling: Scaling; onScaling: (s: Scaling) => void; inputs: SpecInputs }) {
  const { num, pick } = inputs;
  return (
    <>
      <ReplicaFields scaling={scaling} onScaling={onScaling} inputs={inputs} />
      <FormSection
        title="Per replica"
        note="Limits are enforced with cgroups where the OS allows; the run records it when they could not be."
      >
        {num("CPU request (cores)", "cpuRequest", "resources.cpuRequest", {
          placeholder: "= limit, else 1",
          hint: "the autoscaler's 100%",
        })}
        {num("CPU limit (cores)", "cpuLimit", "resources.cpuLimit", { placeholder: "none" })}
        {num("Memory limit (MiB)", "memoryLimitMb", "resources.memoryLimitMb", { step: "1", placeholder: "none" })}
        {num("Start timeout (ms)", "startTimeoutMs", "startTimeoutMs", { step: "1", placeholder: "10000" })}
      </FormSection>
      <FormSection title="Placement and network" note="Placement matters for multi-service apps (msd/*): which services share a process.">
        {pick("Balancing", "balancing", "balancing", ["per-request", "per-connection"], "per-request (default)")}
        {pick("Placement", "placement", "placement", PLACEMENTS, "co-located (default)")}
        {pick("Network", "network", "network", ["loopback", "namespaces"], "loopback (default)")}
      </FormSection>
    </>
  );
}
