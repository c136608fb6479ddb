import type { StepNameValue } from "@opsbench/core";
import { errorMessage } from "./run-failure";
import type { RunContext } from "./run-context";

/**
 * Runs one step of the pipeline and records it on the run: RUNNING, then
 * SUCCEEDED (or SKIPPED) with `detail`, or FAILED with the error, which is rethrown.
 * Browsers are told when the step starts and when it ends.
 */
export async function recordStep<T>(
  ctx: RunContext,
  name: StepNameValue,
  fn: () => Promise<{ result: T; detail: unknown }>,
  okStatus: "SUCCEEDED" | "SKIPPED" = "SUCCEEDED",
): Promise<T> {
  await ctx.store.startStep(name);
  await ctx.publish("step");
  try {
    const { result, detail } = await fn();
    await ctx.store.finishStep(name, { status: okStatus, detail });
    return result;
  } catch (err) {
    await ctx.store.finishStep(name, { status: "FAILED", error: errorMessage(err) });
    throw err;
  } finally {
    await ctx.publish("step");
  }
}
