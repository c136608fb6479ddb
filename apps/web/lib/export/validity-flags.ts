// The validity flags shown beside a run's or a group's numbers: what the worker
// stored on the run (runs.flags), plus what its summary and the group's size say
// when the worker has not stored it (older runs, runs analysed before a check existed).
import { MIN_REPETITIONS, readFlags, type RunSummary, type ValidityFlag } from "@opsbench/core";

/** Over this share of the machine's cores, k6 itself may have been the bottleneck. */
export const GENERATOR_CPU_LIMIT_PERCENT = 80;

export function flagsOfRun(run: { flags: unknown; summary: RunSummary | null }): ValidityFlag[] {
  const flags = readFlags(run.flags);
  const has = (re: RegExp) => flags.some((f) => re.test(f.code));
  const load = run.summary?.load;
  if (load && load.droppedIterations > 0 && !has(/dropped/)) {
    flags.push({
      code: "dropped-iterations",
      message: `${load.droppedIterations} iterations dropped: the load generator could not keep the planned rate`,
    });
  }
  const cpu = load?.generatorCpuPercent;
  if (typeof cpu === "number" && cpu > GENERATOR_CPU_LIMIT_PERCENT && !has(/cpu|generator/)) {
    flags.push({
      code: "load-generator-cpu",
      message: `k6 used ${cpu.toFixed(0)}% of the machine's CPU (over ${GENERATOR_CPU_LIMIT_PERCENT}%): the load generator may have been the bottleneck`,
    });
  }
  return flags;
}

/** Flags of a group as a whole (a study cell, or runs put together). */
export function flagsOfGroup(group: { runs: Array<{ status: string; summary: RunSummary | null }> }): ValidityFlag[] {
  const done = group.runs.filter((r) => r.summary && r.status === "SUCCEEDED").length;
  if (done >= MIN_REPETITIONS) return [];
  return [
    {
      code: "too-few-repetitions",
      message: `${done} succeeded repetition${done === 1 ? "" : "s"} (fewer than ${MIN_REPETITIONS}): the spread across repetitions says little`,
    },
  ];
}
