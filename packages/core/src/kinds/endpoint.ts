import { endpointSpec } from "../targets/kubernetes-spec";
import { defineKind, type LooseSpec } from "./define-kind";

const NOT_DEPLOYED = "an endpoint target is not deployed by opsbench: it has no replicas or nodes to pin";

export const endpointKind = defineKind({
  kind: "endpoint",
  spec: endpointSpec,
  // Only its optional `linked` names a credential, of the kind the linked platform takes.
  credential: (spec) => {
    const linked = typeof spec.linked === "object" && spec.linked !== null ? (spec.linked as LooseSpec) : {};
    if (linked.namespace !== undefined) return "kubernetes";
    if (linked.autoScalingGroupName !== undefined) return "aws";
    if (linked.cloudRunService !== undefined) return "gcp";
    return null;
  },
  place: "cloud",
  vcpuPerReplica: () => null,
  // opsbench deploys nothing: there is no count to pin.
  pin: { replicas: () => NOT_DEPLOYED, nodes: () => NOT_DEPLOYED },
  // opsbench deploys nothing: its cost model as given, with the linked platform's periods when it is linked.
  cost: { billedTime: "platform" },
  observes: ["desired", "ready", "resolutionSeconds", "platform", "totals"],
  words: { label: "endpoint", description: "an existing URL, nothing deployed", replicas: "replicas" },
});
