// A run that ended before its load did (crash, shutdown, abort, failure) keeps the
// seconds it wrote, flagged "partial" beside its numbers (core's validity flags).
import { partialResultsFlag } from "@opsbench/core";
import { addRunFlags, resultSecondsWritten } from "@opsbench/db";
import type { RunContext } from "./run-context";

/** Flags the run partial when it wrote results but its load did not finish; best effort (logged, never thrown). */
export async function flagPartial(ctx: RunContext, why: string): Promise<void> {
  try {
    // A load that finished is whole, whatever failed after it (app checks, analysis).
    if ((await ctx.store.step("LOAD"))?.status === "SUCCEEDED") return;
    const seconds = await resultSecondsWritten(ctx.deps.db, ctx.runId);
    if (seconds > 0) await addRunFlags(ctx.deps.db, ctx.runId, [partialResultsFlag(seconds, why)]);
  } catch (err) {
    ctx.log.warn({ err }, "could not flag the run's results as partial");
  }
}
