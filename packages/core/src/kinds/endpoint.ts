import { endpointSpec } from "../targets/kubernetes-spec";
import { defineKind, noNodes } from "./define-kind";

export const endpointKind = defineKind({
  kind: "endpoint",
  spec: endpointSpec,
  // Only its optional `linked` names a credential, of whichever kind the linked platform takes.
  credential: null,
  place: "cloud",
  vcpuPerReplica: () => null,
  pin: {
    replicas: () => "a endpoint target is not deployed by opsbench: it has no replicas to pin",
    nodes: noNodes("endpoint"),
  },
  cost: { pricedAs: "its cost model as given (opsbench deploys nothing)", platformReportsUsage: false },
  observes: ["desired", "ready", "resolutionSeconds", "platform", "totals"],
  words: { label: "endpoint", description: "an existing URL, nothing deployed" },
});
