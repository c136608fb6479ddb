// The form of each kind that deploys to a real platform (or points at one): its fields component, its first
// values, how they become a spec, and how a stored spec becomes them again (editing it).
import type { ComponentType } from "react";
import { AwsAsgFields } from "./aws-asg-fields";
import { AWS_ASG_FIELDS, buildAwsAsgSpec } from "./aws-asg-spec";
import { AwsLambdaFields } from "./aws-lambda-fields";
import { AWS_LAMBDA_FIELDS, buildAwsLambdaSpec } from "./aws-lambda-spec";
import type { CloudKind } from "./describe-kind";
import { EndpointFields } from "./endpoint-fields";
import { buildEndpointSpec, ENDPOINT_FIELDS, endpointValues } from "./endpoint-spec";
import { GcpCloudRunFields } from "./gcp-cloud-run-fields";
import { buildGcpCloudRunSpec, GCP_CLOUD_RUN_FIELDS } from "./gcp-cloud-run-spec";
import type { KindFieldsProps } from "./kind-props";
import { KubernetesFields } from "./kubernetes-fields";
import { buildKubernetesSpec, KUBERNETES_FIELDS, KUBERNETES_START, kubernetesValues } from "./kubernetes-spec";
import { type FieldType, type SpecValues, uncoveredOf, valuesFromSpec } from "@/features/targets/target-form/spec-values";

export interface CloudKindForm {
  Fields: ComponentType<KindFieldsProps>;
  start: SpecValues;
  build: (values: SpecValues) => Record<string, unknown>;
  /** The boxes, by spec path. */
  fields: Record<string, FieldType>;
  /** A stored spec's boxes and modes (default: each field's value). */
  values?: (spec: unknown) => SpecValues;
  /** Spec keys a mode stands for (kubernetes' portForward), not kept aside when editing. */
  covered?: readonly string[];
}

export const CLOUD_KIND_FORMS: Record<CloudKind, CloudKindForm> = {
  kubernetes: {
    Fields: KubernetesFields,
    start: KUBERNETES_START,
    build: buildKubernetesSpec,
    fields: KUBERNETES_FIELDS,
    values: kubernetesValues,
    covered: ["portForward"],
  },
  endpoint: { Fields: EndpointFields, start: {}, build: buildEndpointSpec, fields: ENDPOINT_FIELDS, values: endpointValues },
  "aws-asg": { Fields: AwsAsgFields, start: {}, build: buildAwsAsgSpec, fields: AWS_ASG_FIELDS },
  "aws-lambda": { Fields: AwsLambdaFields, start: {}, build: buildAwsLambdaSpec, fields: AWS_LAMBDA_FIELDS },
  "gcp-cloud-run": { Fields: GcpCloudRunFields, start: {}, build: buildGcpCloudRunSpec, fields: GCP_CLOUD_RUN_FIELDS },
};

/**
 * A stored spec of a kind as the form edits it: its boxes, and what the boxes do not cover (env, database, a cost
 * model...), sent back as it was so that saving the form changes only what it shows.
 */
export function editedSpec(kind: CloudKind, spec: unknown): { values: SpecValues; kept: Record<string, unknown> } {
  const form = CLOUD_KIND_FORMS[kind];
  return { values: form.values?.(spec) ?? valuesFromSpec(spec, form.fields), kept: uncoveredOf(spec, form.fields, form.covered) };
}
