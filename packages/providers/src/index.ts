import type { Provider } from "./provider";
import { localService } from "./local-service";
import { localFunction } from "./local-function";
import { awsAsg } from "./aws-asg";
import { awsLambda } from "./aws-lambda";
import { gcpCloudRun } from "./gcp-cloud-run";

export * from "./provider";
export { checkCredential, type CredentialCheckContext, type CredentialCheckResult } from "./credential-checks";
export { localService, type LocalServiceState } from "./local-service";
export { localFunction, type LocalFunctionState } from "./local-function";
export { awsAsg, type AwsAsgState } from "./aws-asg";
export { findAsgResources, deleteAsgResources } from "./aws-asg/resources";
export { awsLambda, type AwsLambdaState } from "./aws-lambda";
export { gcpCloudRun, type GcpCloudRunState } from "./gcp-cloud-run";
export { freePort, spawnGroup, stopGroup, groupAlive, cpuTicks, groupCpuTicks, CLOCK_TICKS_PER_SECOND } from "./local/processes";
export { createLoadNetwork, removeLoadNetwork, isLoopbackHost, type LoadNetwork } from "./local/load-network";
export { benchappManifest, readManifest, planDomains, type BenchappManifest } from "./local/manifest";

/** Every provider, by kind. Adding a kind = one folder here and one line below. */
const providers: Record<string, Provider> = {
  [localService.kind]: localService,
  [localFunction.kind]: localFunction,
  [awsAsg.kind]: awsAsg,
  [awsLambda.kind]: awsLambda,
  [gcpCloudRun.kind]: gcpCloudRun,
};

export function providerFor(kind: string): Provider<unknown, unknown> {
  const p = providers[kind];
  if (!p) throw new Error(`no provider for target kind "${kind}"`);
  return p;
}
