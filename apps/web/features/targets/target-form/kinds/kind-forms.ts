// The form of every target kind, by kind: a kind of the catalog (core kinds/) without its form is a compile error
// here. The picker, the boxes, the preview and the targets list reach a kind's form through this record.
import { type TargetKind, targetKinds } from "@opsbench/core";
import { FunctionFields } from "@/features/targets/target-form/function-fields";
import { ServiceFields } from "@/features/targets/target-form/service-fields";
import { buildTargetSpec } from "@/features/targets/target-form/target-spec";
import { describeLocalFunction, describeLocalService } from "@/features/targets/target-form/effective-settings";
import { AwsAsgFields } from "./aws-asg-fields";
import { AWS_ASG_FIELDS, buildAwsAsgSpec, describeAwsAsg } from "./aws-asg-spec";
import { AwsLambdaFields } from "./aws-lambda-fields";
import { AWS_LAMBDA_FIELDS, buildAwsLambdaSpec, describeAwsLambda } from "./aws-lambda-spec";
import { EndpointFields } from "./endpoint-fields";
import { buildEndpointSpec, describeEndpoint, ENDPOINT_FIELDS, endpointValues } from "./endpoint-spec";
import { GcpCloudRunFields } from "./gcp-cloud-run-fields";
import { buildGcpCloudRunSpec, describeGcpCloudRun, GCP_CLOUD_RUN_FIELDS } from "./gcp-cloud-run-spec";
import type { KindForm, PlatformKindForm } from "./kind-props";
import { KubernetesFields } from "./kubernetes-fields";
import { buildKubernetesSpec, describeKubernetes, KUBERNETES_FIELDS, KUBERNETES_START, kubernetesValues } from "./kubernetes-spec";

const KIND_FORMS = {
  "local-service": {
    place: "local",
    Fields: ServiceFields,
    build: (s) => buildTargetSpec("local-service", s.app, s.scaling, s.platform, s.values),
    describe: describeLocalService,
  },
  "local-function": {
    place: "local",
    Fields: FunctionFields,
    build: (s) => buildTargetSpec("local-function", s.app, s.scaling, s.platform, s.values),
    describe: describeLocalFunction,
  },
  kubernetes: {
    place: "platform",
    Fields: KubernetesFields,
    start: KUBERNETES_START,
    build: buildKubernetesSpec,
    fields: KUBERNETES_FIELDS,
    values: kubernetesValues,
    covered: ["portForward"],
    describe: describeKubernetes,
  },
  endpoint: {
    place: "platform",
    Fields: EndpointFields,
    start: {},
    build: buildEndpointSpec,
    fields: ENDPOINT_FIELDS,
    values: endpointValues,
    describe: describeEndpoint,
  },
  "aws-asg": {
    place: "platform",
    Fields: AwsAsgFields,
    start: {},
    build: buildAwsAsgSpec,
    fields: AWS_ASG_FIELDS,
    describe: describeAwsAsg,
  },
  "aws-lambda": {
    place: "platform",
    Fields: AwsLambdaFields,
    start: {},
    build: buildAwsLambdaSpec,
    fields: AWS_LAMBDA_FIELDS,
    describe: describeAwsLambda,
  },
  "gcp-cloud-run": {
    place: "platform",
    Fields: GcpCloudRunFields,
    start: {},
    build: buildGcpCloudRunSpec,
    fields: GCP_CLOUD_RUN_FIELDS,
    describe: describeGcpCloudRun,
  },
} satisfies { [K in TargetKind]: KindForm };

/** The forms of kinds registered at run time (core registerTargetKind), by kind. */
const registered = new Map<string, KindForm>();

/** A kind's form, or undefined for a kind this build has no form for (a stored target of a removed kind). */
export const kindFormOf = (kind: string): KindForm | undefined =>
  kind in KIND_FORMS ? KIND_FORMS[kind as TargetKind] : registered.get(kind);

export const isLocalKind = (kind: string) => kindFormOf(kind)?.place === "local";
export const isPlatformKind = (kind: string) => kindFormOf(kind)?.place === "platform";

/** A platform kind's form; throws for a local kind or one without a form (the caller has checked isPlatformKind). */
export function platformFormOf(kind: string): PlatformKindForm {
  const form = kindFormOf(kind);
  if (form?.place !== "platform") throw new Error(`target kind "${kind}" has no platform form`);
  return form;
}

/** The picker's options: every kind of the catalog that has a form, in the catalog's order, with its words. */
export const kindOptions = (): Array<{ kind: string; label: string }> =>
  targetKinds().flatMap((k) => (kindFormOf(k.kind) ? [{ kind: k.kind, label: `${k.words.label} (${k.words.description})` }] : []));

/**
 * The form of a kind registered at run time; only the test of the kind catalog (tests/test-kind.test.ts)
 * has one. A built-in kind's form is an entry in KIND_FORMS.
 */
export function registerKindForm(kind: string, form: KindForm): void {
  if (kindFormOf(kind)) throw new Error(`target kind "${kind}" already has a form`);
  registered.set(kind, form);
}
