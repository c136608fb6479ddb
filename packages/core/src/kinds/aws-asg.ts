import { awsAsgSpec } from "../targets/cloud-target-specs";
import { ec2Vcpus } from "../targets/target-vcpus";
import { defineKind } from "./define-kind";

export const awsAsgKind = defineKind({
  kind: "aws-asg",
  spec: awsAsgSpec,
  credential: "aws",
  place: "cloud",
  vcpuPerReplica: (spec) => ec2Vcpus(typeof spec.instanceType === "string" ? spec.instanceType : "t3.micro"),
  pin: {
    replicas: (spec, n) => ({ ...spec, minSize: n, maxSize: n }),
    nodes: (spec, n, replicas) =>
      replicas !== undefined
        ? "an Auto Scaling group's instances are its nodes: give replicas or nodes, not both"
        : { ...spec, minSize: n, maxSize: n },
  },
  // Instance seconds in service and the ALB's capacity units, as CloudWatch reports them.
  cost: { billedTime: "platform" },
  observes: ["desired", "resolutionSeconds", "platform", "totals"],
  words: { label: "aws-asg", description: "EC2 Auto Scaling group behind an ALB", replicas: "instances" },
});
