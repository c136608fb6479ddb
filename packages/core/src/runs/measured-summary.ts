// A run's summary over its analysis window when all its cells are at hand (an import): the warm-up
// decided from them (measured-cells.ts), its figures after it, and the flag of a detected one.
import type { Warmup } from "../windows/analysis-window";
import { summarize, type ResultCell } from "./latency-summary";
import { afterWarmup, measuredSeconds, warmupFlags, warmupOfCells, warmupSummaryFields } from "./measured-cells";
import type { RunSummary } from "./run-summary";
import type { ValidityFlag } from "./validity-flags";

/**
 * A run's summary over its analysis window, for a run whose cells are all at hand (an import): the warm-up
 * decided from them, the cells after it, the window's seconds after it, and the flag of a detected one.
 */
export function measuredSummary(
  cells: readonly ResultCell[],
  window: { startMs: number; endMs: number },
  statedSeconds: number | null,
): { summary: RunSummary; flags: ValidityFlag[]; warmup: Warmup } {
  const loadStart = new Date(window.startMs);
  const warmup = warmupOfCells(cells, loadStart, statedSeconds, window.endMs);
  const summary = {
    ...summarize(afterWarmup(cells, loadStart, warmup.seconds), measuredSeconds(window, loadStart, warmup.seconds)),
    ...warmupSummaryFields(warmup),
  };
  return { summary, flags: warmupFlags(warmup), warmup };
}
