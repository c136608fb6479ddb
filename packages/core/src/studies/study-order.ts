// The run order of a study. `interleaved-random` (randomized multiple
// interleaved trials): each round runs every cell once, in a fresh random order
// drawn from the recorded seed, so slow drifts of the machine spread over all
// cells instead of landing on one. `sequential`: each cell's repetitions in a block.
import { seededRandom } from "../statistics/seeded-random";

export const MAX_SEED = 2 ** 31 - 1;

export interface PlannedRun {
  /** Index into the study's cells (targets x workloads, targets outer). */
  cell: number;
  /** 1-based: the k-th run of this cell. */
  repetition: number;
  /** 1-based round of an interleaved study; null for sequential. */
  round: number | null;
  /** 1-based place in the study's run order. */
  position: number;
}

/** A shuffled copy (Fisher-Yates: every permutation equally likely). */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export function planRunOrder(args: {
  cells: number;
  repetitions: number;
  order: "interleaved-random" | "sequential";
  seed: number | null;
}): PlannedRun[] {
  const { cells, repetitions } = args;
  if (!Number.isInteger(cells) || cells < 1) throw new RangeError(`a study needs at least one cell, not ${cells}`);
  if (!Number.isInteger(repetitions) || repetitions < 1) throw new RangeError(`repetitions must be >= 1, not ${repetitions}`);
  const indices = Array.from({ length: cells }, (_, i) => i);
  const out: PlannedRun[] = [];
  if (args.order === "sequential") {
    for (const cell of indices)
      for (let r = 1; r <= repetitions; r++) out.push({ cell, repetition: r, round: null, position: out.length + 1 });
    return out;
  }
  if (args.seed === null || !Number.isInteger(args.seed) || args.seed < 0 || args.seed > MAX_SEED) {
    throw new RangeError(`an interleaved-random order needs an integer seed in 0..${MAX_SEED}, not ${args.seed}`);
  }
  const random = seededRandom(args.seed);
  for (let round = 1; round <= repetitions; round++) {
    for (const cell of shuffled(indices, random)) out.push({ cell, repetition: round, round, position: out.length + 1 });
  }
  return out;
}
