// The form of each kind that deploys to a real platform (or points at one): its fields component, its first
// values and how they become a spec.
import type { ComponentType } from "react";
import { AwsAsgFields } from "./aws-asg-fields";
import { buildAwsAsgSpec } from "./aws-asg-spec";
import { AwsLambdaFields } from "./aws-lambda-fields";
import { buildAwsLambdaSpec } from "./aws-lambda-spec";
import type { CloudKind } from "./describe-kind";
import { EndpointFields } from "./endpoint-fields";
import { buildEndpointSpec } from "./endpoint-spec";
import { GcpCloudRunFields } from "./gcp-cloud-run-fields";
import { buildGcpCloudRunSpec } from "./gcp-cloud-run-spec";
import type { KindFieldsProps } from "./kind-props";
import { KubernetesFields } from "./kubernetes-fields";
import { buildKubernetesSpec, KUBERNETES_START } from "./kubernetes-spec";
import type { SpecValues } from "@/features/targets/target-form/spec-values";

export interface CloudKindForm {
  Fields: ComponentType<KindFieldsProps>;
  start: SpecValues;
  build: (values: SpecValues) => Record<string, unknown>;
}

export const CLOUD_KIND_FORMS: Record<CloudKind, CloudKindForm> = {
  kubernetes: { Fields: KubernetesFields, start: KUBERNETES_START, build: buildKubernetesSpec },
  endpoint: { Fields: EndpointFields, start: {}, build: buildEndpointSpec },
  "aws-asg": { Fields: AwsAsgFields, start: {}, build: buildAwsAsgSpec },
  "aws-lambda": { Fields: AwsLambdaFields, start: {}, build: buildAwsLambdaSpec },
  "gcp-cloud-run": { Fields: GcpCloudRunFields, start: {}, build: buildGcpCloudRunSpec },
};
