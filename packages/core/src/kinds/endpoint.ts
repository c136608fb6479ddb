import { endpointSpec } from "../targets/kubernetes-spec";
import { defineKind } from "./define-kind";

const NOT_DEPLOYED = "an endpoint target is not deployed by opsbench: it has no replicas or nodes to pin";

export const endpointKind = defineKind({
  kind: "endpoint",
  spec: endpointSpec,
  // Only its optional `linked` names a credential, of whichever kind the linked platform takes.
  credential: null,
  place: "cloud",
  vcpuPerReplica: () => null,
  // opsbench deploys nothing: there is no count to pin.
  pin: { replicas: () => NOT_DEPLOYED, nodes: () => NOT_DEPLOYED },
  cost: { pricedAs: "its cost model as given (opsbench deploys nothing)", platformReportsUsage: false },
  observes: ["desired", "ready", "resolutionSeconds", "platform", "totals"],
  words: { label: "endpoint", description: "an existing URL, nothing deployed" },
});
