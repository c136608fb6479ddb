// Step 3, baseline: the provider's reset() brings the target back to its minimum
// (scale-down, cold instances), checked rather than assumed. A target that does not
// get there in time still runs, flagged, so its numbers are kept rather than lost.
import { baselineNotReachedFlag } from "@opsbench/core";
import { addRunFlags } from "@opsbench/db";
import type { Provider } from "@opsbench/providers";
import { checkBaseline } from "../baseline-check";
import type { Provisioned } from "./provision";
import { recordStep } from "./record-step";
import { providerContext, type RunContext } from "./run-context";

export async function baseline(ctx: RunContext, provider: Provider, { dep, credential }: Provisioned, waitMs: number): Promise<void> {
  await recordStep(ctx, "BASELINE", async () => {
    const outcome = await checkBaseline((signal) => provider.reset(dep, { ...providerContext(ctx, credential), signal }), {
      waitMs,
      signal: ctx.signal,
    });
    if (!outcome.reached) {
      await addRunFlags(ctx.deps.db, ctx.runId, [baselineNotReachedFlag(Math.round(outcome.waitedMs / 1000), outcome.reason)]);
      await ctx.store.event("warn", `baseline not reached: ${outcome.reason}; the run goes ahead, flagged`);
    }
    return { result: undefined, detail: { replicasReady: outcome.reached, waitedMs: outcome.waitedMs } };
  });
}
