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
  // Its platform meters billed time each second (totals.billedMs).
  cost: { billedTime: "meter" },
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
  words: { label: "local-function", description: "scale to zero", replicas: "instances" },
});
