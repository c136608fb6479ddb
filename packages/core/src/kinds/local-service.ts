import { podCpuOfSpec } from "../targets/kubernetes-spec";
import { localServiceSpec } from "../targets/local-specs";
import { defineKind, noNodes, read, without } from "./define-kind";

export const localServiceKind = defineKind({
  kind: "local-service",
  spec: localServiceSpec,
  credential: null,
  place: "local",
  // What a replica may use (its cgroup limit), else what it asks for (the autoscaler's reference), else 1.
  vcpuPerReplica: (spec) => read.cores(read.resources(spec).cpuLimit) ?? read.cores(read.resources(spec).cpuRequest) ?? 1,
  pin: {
    replicas: (spec, n) => ({ ...without(spec, "minReplicas", "maxReplicas"), replicas: n }),
    nodes: noNodes("local-service"),
  },
  cost: { billedTime: "none", podCpu: podCpuOfSpec },
  observes: ["desired", "perReplicaCpu", "replicaIds", "scalingEvents", "starting"],
  words: { label: "local-service", description: "replicas, HPA", replicas: "replicas" },
});
