// Validity flags: reasons to read a run's numbers with care, kept on the run
// (runs.flags) and shown wherever its numbers are shown.
import { z } from "zod";
import type { RunSummary } from "./run-summary";

export const VALIDITY_FLAG_CODES = ["baseline-not-reached", "dropped-iterations", "too-few-repetitions", "load-generator-cpu"] as const;
export type KnownValidityFlagCode = (typeof VALIDITY_FLAG_CODES)[number];

/** Codes are open (later checks add their own, e.g. load-generator CPU); known ones are listed above. */
export const validityFlag = z.object({ code: z.string().min(1), message: z.string() }).strict();
export type ValidityFlag = z.infer<typeof validityFlag>;
export const validityFlags = z.array(validityFlag);

/** Above this share of the machine's CPU, k6 itself may be the bottleneck. */
export const LOAD_GENERATOR_CPU_LIMIT = 80;

/** Fewer repetitions than this and a cell's spread says little (and a CI of 2 is very wide). */
export const MIN_REPETITIONS = 3;

export function baselineNotReachedFlag(waitedSeconds: number, detail?: string): ValidityFlag {
  return {
    code: "baseline-not-reached",
    message: `the target was not back at its baseline (minimum replicas/instances) after ${waitedSeconds} s${detail ? ` (${detail})` : ""}; the run went ahead`,
  };
}

/** Flags that follow from a run's summary and its study's design, set when the run is analysed. */
export function analysisFlags(summary: Pick<RunSummary, "load">, repetitions: number): ValidityFlag[] {
  const flags: ValidityFlag[] = [];
  const cpu = summary.load?.generatorCpuPercent ?? null;
  if (cpu !== null && cpu > LOAD_GENERATOR_CPU_LIMIT) {
    flags.push({
      code: "load-generator-cpu",
      message: `k6 used ${cpu.toFixed(0)}% of the machine's CPU (over ${LOAD_GENERATOR_CPU_LIMIT}%): the load generator may have limited the results`,
    });
  }
  const dropped = summary.load?.droppedIterations ?? 0;
  if (dropped > 0) {
    flags.push({
      code: "dropped-iterations",
      message: `${dropped} iterations dropped: the load generator could not keep the planned rate`,
    });
  }
  if (repetitions < MIN_REPETITIONS) {
    flags.push({
      code: "too-few-repetitions",
      message: `${repetitions} repetition${repetitions === 1 ? "" : "s"} of this target x workload (fewer than ${MIN_REPETITIONS}): the spread across repetitions says little`,
    });
  }
  return flags;
}

/** Adds flags, one per code (a newer flag of the same code replaces the older). */
export function mergeFlags(existing: readonly ValidityFlag[], added: readonly ValidityFlag[]): ValidityFlag[] {
  const out = existing.filter((f) => !added.some((a) => a.code === f.code));
  return [...out, ...added];
}

/** The flags stored on a row, tolerating anything unexpected (a bad row must not break a page). */
export function readFlags(json: unknown): ValidityFlag[] {
  const r = validityFlags.safeParse(json);
  return r.success ? r.data : [];
}
