import type { ProviderContext } from "../provider";

/** Nothing half-made survives a failed deploy: tears down what `state` records so far, then rethrows the failure. */
export async function undoFailedDeploy<S>(
  provider: { teardown(dep: { state: S }, ctx: ProviderContext): Promise<void> },
  state: S,
  ctx: ProviderContext,
  failure: unknown,
): Promise<never> {
  await provider.teardown({ state }, ctx).catch((e) => ctx.log("teardown after a failed deploy failed", { error: (e as Error).message }));
  throw failure;
}
