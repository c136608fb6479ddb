import type { Provider } from "./provider";
import { localService } from "./local-service";
import { localFunction } from "./local-function";
import { kubernetes } from "./kubernetes";
import { endpoint } from "./endpoint";
import { awsAsg } from "./aws-asg";
import { awsLambda } from "./aws-lambda";
import { gcpCloudRun } from "./gcp-cloud-run";

export * from "./provider";
export { checkCredential, type CredentialCheckContext, type CredentialCheckResult } from "./credential-checks";
export { localService, type LocalServiceState } from "./local-service";
export { localFunction, type LocalFunctionState } from "./local-function";
export { kubernetes, type KubernetesState, deleteRunNamespaces } from "./kubernetes";
export { kubeClientOf, type KubeClient } from "./kubernetes/kube-client";
export { RUN_LABEL } from "./kubernetes/objects";
export { endpoint } from "./endpoint";
export { awsAsg, type AwsAsgState } from "./aws-asg";
export { findAsgResources, deleteAsgResources } from "./aws-asg/resources";
export { awsLambda, type AwsLambdaState } from "./aws-lambda";
export { gcpCloudRun, type GcpCloudRunState } from "./gcp-cloud-run";
export { benchappManifest, readManifest, planDomains, type BenchappManifest } from "./local/manifest";

/** Every provider, by kind. Adding a kind = one folder here and one line below. */
const registry: Record<string, Provider> = {
  [localService.kind]: localService,
  [localFunction.kind]: localFunction,
  [kubernetes.kind]: kubernetes,
  [endpoint.kind]: endpoint,
  [awsAsg.kind]: awsAsg,
  [awsLambda.kind]: awsLambda,
  [gcpCloudRun.kind]: gcpCloudRun,
};

/** Every registered provider (the reaper visits those that can list their resources). */
export const providers = (): Readonly<Record<string, Provider>> => registry;

export function providerFor(kind: string): Provider<unknown, unknown> {
  const p = registry[kind];
  if (!p) throw new Error(`no provider for target kind "${kind}"`);
  return p;
}
