import type { Provider } from "./provider";
import { localService } from "./local-service";
import { localFunction } from "./local-function";

export * from "./provider";
export { checkCredential, type CredentialCheckContext, type CredentialCheckResult } from "./credential-checks";
export { localService, type LocalServiceState } from "./local-service";
export { localFunction, type LocalFunctionState } from "./local-function";
export { freePort, spawnGroup, stopGroup, groupAlive, cpuTicks, groupCpuTicks, CLOCK_TICKS_PER_SECOND } from "./local/processes";
export { createLoadNetwork, removeLoadNetwork, isLoopbackHost, type LoadNetwork } from "./local/load-network";
export { benchappManifest, readManifest, planDomains, type BenchappManifest } from "./local/manifest";

/** Every provider, by kind. Adding a kind = one folder here and one line below. */
const providers: Record<string, Provider> = {
  [localService.kind]: localService,
  [localFunction.kind]: localFunction,
};

export function providerFor(kind: string): Provider<unknown, unknown> {
  const p = providers[kind];
  if (!p) throw new Error(`no provider for target kind "${kind}"`);
  return p;
}
