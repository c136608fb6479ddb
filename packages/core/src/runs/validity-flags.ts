// Validity flags: reasons to read a run's numbers with care, kept on the run
// (runs.flags) and shown wherever its numbers are shown.
import { z } from "zod";
import type { LoadTotals, RunSummary } from "./run-summary";

export const VALIDITY_FLAG_CODES = [
  "baseline-not-reached",
  "dropped-iterations",
  "too-few-repetitions",
  "load-generator-cpu",
  "partial",
  "generator-clock-skew",
  "lost-generator",
  "port-forward",
  "over-limits",
  "warm-up-detected",
  "no-successful-request",
] as const;
export type KnownValidityFlagCode = (typeof VALIDITY_FLAG_CODES)[number];

/**
 * Codes are open (later checks add their own, e.g. load-generator CPU); known ones are listed above.
 * `share`: how much of the run the flag concerns, 0 to 1, for a flag that can be partly true
 * (dropped-iterations: the share of planned iterations dropped); absent on flags stored before it.
 */
export const validityFlag = z.object({ code: z.string().min(1), message: z.string(), share: z.number().min(0).max(1).optional() }).strict();
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

/** k6 was stopped because what it was about to run (or ran) went above the run's limits or above what k6 inspect said. */
export function overLimitsFlag(reason: string): ValidityFlag {
  return { code: "over-limits", message: `k6 was stopped: ${reason}` };
}

export function portForwardFlag(): ValidityFlag {
  return {
    code: "port-forward",
    message:
      "the load reached the pods through port-forwards of the Kubernetes API server (no load balancer): latency includes the tunnel, and the tunnel may have limited the throughput",
  };
}

export function loadGeneratorCpuFlag(cpuPercent: number): ValidityFlag {
  return {
    code: "load-generator-cpu",
    message: `k6 used ${cpuPercent.toFixed(0)}% of the machine's CPU (over ${LOAD_GENERATOR_CPU_LIMIT}%): the load generator may have limited the results`,
  };
}

/** Load generators whose clocks (against the database server's) disagree by more than this are flagged. */
export const GENERATOR_CLOCK_SKEW_LIMIT_MS = 100;

export function generatorClockSkewFlag(spreadMs: number): ValidityFlag {
  return {
    code: "generator-clock-skew",
    message: `the load generators' clocks disagreed by ${Math.round(spreadMs)} ms (over ${GENERATOR_CLOCK_SKEW_LIMIT_MS} ms); seconds were aligned on corrected times, per-second figures may still blur`,
  };
}

/** A run on several generators of which some were lost: its numbers cover only the others' share of the load after that. */
export function lostGeneratorFlag(lost: ReadonlyArray<{ segment: number; count: number; lostAt: string | null }>): ValidityFlag {
  const which = lost.map((g) => `segment ${g.segment + 1}/${g.count}${g.lostAt ? ` at ${g.lostAt}` : ""}`).join(", ");
  return {
    code: "lost-generator",
    message: `partial: load generator ${which} was lost; the totals hold only what the remaining generators measured`,
  };
}

/** Beside lost-generator: the run's totals are partial (the same code faults use), so every reader of totals sees it. */
export function lostGeneratorPartialFlag(lost: number, count: number): ValidityFlag {
  return {
    code: "partial",
    message: `partial results: ${lost} of ${count} load generators were lost; the totals do not hold their share of the load after that`,
  };
}

function generatorsCpuFlag(busy: ReadonlyArray<{ segment: number; count: number; cpuPercent: number | null }>): ValidityFlag {
  const which = busy.map((g) => `segment ${g.segment + 1}/${g.count} ${g.cpuPercent!.toFixed(0)}%`).join(", ");
  return {
    code: "load-generator-cpu",
    message: `k6 used over ${LOAD_GENERATOR_CPU_LIMIT}% of its machine's CPU on ${which}: those load generators may have limited the results`,
  };
}

/**
 * Up to this share of its planned iterations a run may drop and still be judged (docs/measurement.md): a few
 * iterations k6 could not start in time barely move a percentile, while a generator that falls far behind no
 * longer offers the planned load. Above it, the run is left out of verdicts (measured-cells.ts verdictExcludingFlags).
 */
export const DROPPED_ITERATIONS_TOLERANCE = 0.01;

/** The share of planned iterations k6 dropped: dropped / (iterations + dropped), iterations being those it ran; 0 when none were planned. */
export function droppedIterationsShare(load: Pick<LoadTotals, "iterations" | "droppedIterations">): number {
  const planned = load.iterations + load.droppedIterations;
  return planned > 0 ? load.droppedIterations / planned : 0;
}

/** A share in percent with two decimals, more when two would hide which side of the tolerance it is on (1.004% is not "1.00%"). */
export function fmtDropShare(share: number): string {
  let decimals = 2;
  while (
    decimals < 6 &&
    share !== DROPPED_ITERATIONS_TOLERANCE &&
    (share * 100).toFixed(decimals) === (DROPPED_ITERATIONS_TOLERANCE * 100).toFixed(decimals)
  )
    decimals++;
  return `${(share * 100).toFixed(decimals)}%`;
}

/** The tolerance as written in flags, notes and docs: "1%". */
export const DROPPED_ITERATIONS_TOLERANCE_TEXT = `${DROPPED_ITERATIONS_TOLERANCE * 100}%`;

/** Dropped iterations above the tolerance leave the run out of verdicts; within it the run is judged (the flag is still shown). */
export const dropsOverTolerance = (share: number): boolean => share > DROPPED_ITERATIONS_TOLERANCE;

export function droppedIterationsFlag(load: Pick<LoadTotals, "iterations" | "droppedIterations">): ValidityFlag {
  const share = droppedIterationsShare(load);
  const count = (n: number) => n.toLocaleString("en-US");
  return {
    code: "dropped-iterations",
    message: `${count(load.droppedIterations)} of ${count(load.iterations + load.droppedIterations)} iterations dropped (${fmtDropShare(share)}): the load generator could not keep the planned rate; ${
      dropsOverTolerance(share)
        ? `over the ${DROPPED_ITERATIONS_TOLERANCE_TEXT} tolerance, so the run is left out of verdicts`
        : `within the ${DROPPED_ITERATIONS_TOLERANCE_TEXT} tolerance, so the run is still judged`
    }`,
    share,
  };
}

/** The run ended before its load did (worker crash, shutdown, abort): the seconds written until then are kept, and are not a whole run. */
export function partialResultsFlag(seconds: number, why: string): ValidityFlag {
  return {
    code: "partial",
    message: `partial results: ${seconds} second${seconds === 1 ? "" : "s"} of load were recorded before the run ended early (${why}); they are kept, but are not a whole run`,
  };
}

/** The one wording of "too few repetitions", for a run (its cell's planned repetitions) and for a cell or group (its succeeded runs). */
export function tooFewRepetitionsFlag(repetitions: number): ValidityFlag {
  return {
    code: "too-few-repetitions",
    message: `${repetitions} repetition${repetitions === 1 ? "" : "s"} of this target x workload (fewer than ${MIN_REPETITIONS}): the spread across repetitions says little`,
  };
}

/**
 * A run that recorded no request, or whose every request failed, measured nothing of the target: its status stays
 * SUCCEEDED (the pipeline ran to its end) but it carries this flag, shown as a warning beside its status, and is left
 * out of verdicts (measured-cells.ts). The usual cause is a script aimed elsewhere than the target.
 */
export const NO_SUCCESSFUL_REQUEST = "no-successful-request";

/**
 * The flag of a run without a successful request; `loopbackHosts`: the loopback hosts its script names
 * (workloads/loopback-hint.ts), said as the likely cause. Null when some request succeeded.
 */
export function noSuccessfulRequestFlag(
  summary: Pick<RunSummary, "requests" | "failures">,
  loopbackHosts: readonly string[] = [],
): ValidityFlag | null {
  if (summary.requests > 0 && summary.failures < summary.requests) return null;
  const what =
    summary.requests === 0 ? "the run recorded no request" : `all ${summary.requests.toLocaleString("en-US")} requests failed (goodput 0%)`;
  const hint = loopbackHosts.length
    ? `; the script names ${loopbackHosts.join(", ")}, a loopback address the load generator does not reach the target at: use __ENV.OPSBENCH_BASE_URL`
    : "; check that the script sends its requests to __ENV.OPSBENCH_BASE_URL and that the target answers there";
  return { code: NO_SUCCESSFUL_REQUEST, message: `${what}, so it measured nothing of the target${hint}` };
}

/** Flags that follow from a run's summary alone (the load generator's CPU, dropped iterations, no successful request). */
export function summaryFlags(
  summary: (Pick<RunSummary, "load"> & Partial<Pick<RunSummary, "requests" | "failures">>) | null,
): ValidityFlag[] {
  const flags: ValidityFlag[] = [];
  if (summary && summary.requests !== undefined && summary.failures !== undefined) {
    const none = noSuccessfulRequestFlag({ requests: summary.requests, failures: summary.failures });
    if (none) flags.push(none);
  }
  const generators = summary?.load?.generators;
  const cpu = summary?.load?.generatorCpuPercent ?? null;
  if (generators?.length) {
    // On several generators the flag is per segment: one busy machine says nothing of the others.
    const busy = generators.filter((g) => g.cpuPercent !== null && g.cpuPercent > LOAD_GENERATOR_CPU_LIMIT);
    if (busy.length) flags.push(generatorsCpuFlag(busy));
  } else if (cpu !== null && cpu > LOAD_GENERATOR_CPU_LIMIT) flags.push(loadGeneratorCpuFlag(cpu));
  if (summary?.load && summary.load.droppedIterations > 0) flags.push(droppedIterationsFlag(summary.load));
  return flags;
}

/** The "too few repetitions" flag when `repetitions` is under MIN_REPETITIONS, else none. */
export const repetitionFlags = (repetitions: number): ValidityFlag[] =>
  repetitions < MIN_REPETITIONS ? [tooFewRepetitionsFlag(repetitions)] : [];

/** Flags that follow from a run's summary and its study's design, set when the run is analysed. */
export function analysisFlags(
  summary: Pick<RunSummary, "load"> & Partial<Pick<RunSummary, "requests" | "failures">>,
  repetitions: number,
): ValidityFlag[] {
  return [...summaryFlags(summary), ...repetitionFlags(repetitions)];
}

/**
 * The flags shown beside a run's numbers: those stored on it, plus what its summary
 * says when the worker did not store it (runs analysed before a check existed, imports).
 * A dropped-iterations flag stored before flags had a share is recomputed from the summary's
 * load totals (made from the run's load seconds) when it has them, so it is judged by its share.
 */
export function flagsOfRun(run: {
  flags: readonly ValidityFlag[];
  summary: (Pick<RunSummary, "load"> & Partial<Pick<RunSummary, "requests" | "failures">>) | null;
}): ValidityFlag[] {
  const fromSummary = summaryFlags(run.summary);
  const recomputed = (f: ValidityFlag) =>
    f.code === "dropped-iterations" && f.share === undefined ? (fromSummary.find((d) => d.code === f.code) ?? f) : f;
  const derived = fromSummary.filter((d) => !run.flags.some((f) => f.code === d.code));
  return [...run.flags.map(recomputed), ...derived];
}

/** Flags of a group of runs as a whole (a study cell, or runs put side by side): too few of them succeeded. */
export function flagsOfGroup(group: { runs: ReadonlyArray<{ status: string; summary: unknown }> }): ValidityFlag[] {
  return repetitionFlags(group.runs.filter((r) => r.summary && r.status === "SUCCEEDED").length);
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
