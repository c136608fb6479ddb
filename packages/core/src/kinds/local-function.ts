import { localFunctionSpec } from "../targets/local-specs";
import { defineKind, noNodes, read } from "./define-kind";

export const localFunctionKind = defineKind({
  kind: "local-function",
  spec: localFunctionSpec,
  credential: null,
  place: "local",
  vcpuPerReplica: (spec) => read.cores(read.resources(spec).cpuLimit) ?? 1,
  pin: {
    replicas: (spec, n) => ({ ...spec, minInstances: n, maxInstances: n }),
    nodes: noNodes("local-function"),
  },
  cost: { pricedAs: "requests and billed duration (pay-per-use), as its platform bills them", platformReportsUsage: false },
  observes: [
    "starting",
    "ready",
    "perInstanceCpu",
    "coldStarts",
    "coldStartMs",
    "queued",
    "queuedPeak",
    "inFlight",
    "queueTimeouts",
    "rejected",
    "billedMs",
  ],
  words: { label: "local-function", description: "scale to zero" },
});
