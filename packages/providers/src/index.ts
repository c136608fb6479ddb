import type { Provider } from "./provider";
import { localService } from "./local-service";

export * from "./provider";
export { localService, type LocalServiceState } from "./local-service";
export { CLOCK_TICKS_PER_SECOND, cpuTicks, freePort, spawnGroup, stopGroup } from "./local-service/processes";

/** Every provider, by kind. Adding a kind = one folder here and one line below. */
const providers: Record<string, Provider<any, any>> = {
  [localService.kind]: localService,
};

export function providerFor(kind: string): Provider<unknown, unknown> {
  const p = providers[kind];
  if (!p) throw new Error(`no provider for target kind "${kind}"`);
  return p;
}
