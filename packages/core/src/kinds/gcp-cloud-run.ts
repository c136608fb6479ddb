import { gcpCloudRunSpec } from "../targets/cloud-target-specs";
import { defineKind, noNodes, read } from "./define-kind";

export const gcpCloudRunKind = defineKind({
  kind: "gcp-cloud-run",
  spec: gcpCloudRunSpec,
  credential: "gcp",
  place: "cloud",
  vcpuPerReplica: (spec) => read.cores(spec.cpu ?? "1"),
  pin: {
    replicas: (spec, n) => ({ ...spec, minInstances: n, maxInstances: n }),
    nodes: noNodes("gcp-cloud-run"),
  },
  // Billed instance time (or requests), as Cloud Monitoring reports it.
  cost: { billedTime: "platform" },
  observes: ["resolutionSeconds", "platform", "totals"],
  words: { label: "gcp-cloud-run", description: "Cloud Run service", replicas: "instances" },
});
