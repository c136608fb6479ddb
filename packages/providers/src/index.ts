import { kindDefinition, type TargetKind } from "@opsbench/core";
import type { KindProvider, Provider } from "./provider";
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

/**
 * Every provider, by kind: a kind of the catalog (core kinds/) without its provider, or a provider filed under another
 * kind than its own (its `kind` and spec), is a compile error here.
 */
const registry: { [K in TargetKind]: KindProvider<K> } = {
  "local-service": localService,
  "local-function": localFunction,
  kubernetes,
  endpoint,
  "aws-asg": awsAsg,
  "aws-lambda": awsLambda,
  "gcp-cloud-run": gcpCloudRun,
};
/** The providers of kinds registered at run time (registerTargetKind in core), by kind. */
const registered = new Map<string, Provider>();

/** Every provider (the reaper visits those that can list their resources). */
export const providers = (): Readonly<Record<string, Provider>> => ({ ...registry, ...Object.fromEntries(registered) });

export function providerFor(kind: string): Provider<unknown, unknown> {
  const p = kind in registry ? registry[kind as TargetKind] : registered.get(kind);
  if (!p) throw new Error(`no provider for target kind "${kind}"`);
  return p;
}

/**
 * The provider of a kind registered at run time (core registerTargetKind); only the test of the kind catalog
 * (tests/test-kind.test.ts) has one. A built-in kind's provider is a line in `registry`.
 */
export function registerProvider(provider: Provider): void {
  if (!kindDefinition(provider.kind)) throw new Error(`no target kind "${provider.kind}" in the catalog`);
  if (providers()[provider.kind]) throw new Error(`target kind "${provider.kind}" already has a provider`);
  registered.set(provider.kind, provider);
}
