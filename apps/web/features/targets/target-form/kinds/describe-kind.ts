// Every cloud kind's spec in words (defaults filled in): the form's preview and the targets list.
import type { TargetKind } from "@opsbench/core";
import { describeAwsAsg } from "./aws-asg-spec";
import { describeAwsLambda } from "./aws-lambda-spec";
import { describeEndpoint } from "./endpoint-spec";
import { describeGcpCloudRun } from "./gcp-cloud-run-spec";
import { describeKubernetes } from "./kubernetes-spec";

export type CloudKind = Exclude<TargetKind, "local-service" | "local-function">;

export const DESCRIBE_CLOUD_KIND: Record<CloudKind, (spec: unknown) => string[] | null> = {
  kubernetes: describeKubernetes,
  endpoint: describeEndpoint,
  "aws-asg": describeAwsAsg,
  "aws-lambda": describeAwsLambda,
  "gcp-cloud-run": describeGcpCloudRun,
};

export const isCloudKind = (kind: string): kind is CloudKind => kind in DESCRIBE_CLOUD_KIND;
