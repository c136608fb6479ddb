// Step 5, collect: the app-level checks the target declares (e.g. the shop's
// consistency check). Local targets have no cloud metrics to collect, so without
// checks the step is recorded as SKIPPED.
import type { AppCheck, Provider } from "@opsbench/providers";
import type { Provisioned } from "./provision";
import { recordStep } from "./record-step";
import { providerContext, type RunContext } from "./run-context";

export async function collect(ctx: RunContext, provider: Provider, { target, dep, credential }: Provisioned): Promise<AppCheck[]> {
  const appChecks = provider.appChecks ? await provider.appChecks(target.spec, dep, providerContext(ctx, credential)) : [];
  await recordStep(
    ctx,
    "COLLECT",
    async () => ({
      result: undefined,
      detail: appChecks.length ? { appChecks } : { note: "no cloud metrics or app checks for this target" },
    }),
    appChecks.length ? "SUCCEEDED" : "SKIPPED",
  );
  for (const c of appChecks)
    await ctx.store.event(c.ok ? "info" : "warn", `app check ${c.name}: ${c.ok ? "passed" : "FAILED"}: ${c.message}`);
  return appChecks;
}
