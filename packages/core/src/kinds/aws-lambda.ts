import { awsLambdaSpec } from "../targets/cloud-target-specs";
import { LAMBDA_MB_PER_VCPU } from "../targets/target-vcpus";
import { defineKind, noNodes, read } from "./define-kind";

export const awsLambdaKind = defineKind({
  kind: "aws-lambda",
  spec: awsLambdaSpec,
  credential: "aws",
  place: "cloud",
  vcpuPerReplica: (spec) => (read.positive(spec.memoryMb) ?? 128) / LAMBDA_MB_PER_VCPU,
  pin: {
    replicas: () => "a Lambda function has no replicas to pin: its instances follow the load (reservedConcurrency caps them)",
    nodes: noNodes("aws-lambda"),
  },
  // Requests and GB-seconds, as CloudWatch reports them.
  cost: { billedTime: "platform" },
  observes: ["resolutionSeconds", "platform", "totals"],
  words: { label: "aws-lambda", description: "function with a function URL", replicas: "instances" },
});
