// A count over time as a staircase: each step holds from its `fromSecond` until
// the next step, the last until the end of the window. Nodes of a cluster,
// instances of a group or of a serverless service are all counted this way.
import { z } from "zod";

export const staircaseStep = z
  .object({
    fromSecond: z.number().min(0, "must be >= 0"),
    count: z.number().int("must be a whole number").min(0, "must be >= 0").max(100_000, "must be <= 100000"),
  })
  .strict();
export type StaircaseStep = z.infer<typeof staircaseStep>;

/** Checks a staircase against its window; issues are reported under `field`. */
export function checkStaircase(steps: StaircaseStep[], durationSeconds: number, field: string, ctx: z.RefinementCtx): void {
  if (steps.length === 0) return;
  if (steps[0]!.fromSecond !== 0)
    ctx.addIssue({ code: "custom", path: [field, 0, "fromSecond"], message: "the first step must start at second 0" });
  for (let i = 1; i < steps.length; i++) {
    if (!(steps[i]!.fromSecond > steps[i - 1]!.fromSecond)) {
      ctx.addIssue({
        code: "custom",
        path: [field, i, "fromSecond"],
        message: `must be after the previous step's (${steps[i - 1]!.fromSecond})`,
      });
    }
  }
  const last = steps[steps.length - 1]!;
  if (!(last.fromSecond < durationSeconds)) {
    ctx.addIssue({
      code: "custom",
      path: [field, steps.length - 1, "fromSecond"],
      message: `must be before durationSeconds (${durationSeconds})`,
    });
  }
}

/** The integral of the count over [0, durationSeconds): e.g. node-seconds. */
export function staircaseSeconds(steps: StaircaseStep[], durationSeconds: number): number {
  let sum = 0;
  for (let i = 0; i < steps.length; i++) {
    const until = i + 1 < steps.length ? steps[i + 1]!.fromSecond : durationSeconds;
    sum += steps[i]!.count * (until - steps[i]!.fromSecond);
  }
  return sum;
}

export interface Lifetime {
  from: number;
  to: number;
  /** Started and stopped inside the window; otherwise it began before or outlives it and is cut by the window. */
  closed: boolean;
}

/**
 * The individual lifetimes behind a staircase, newest removed first (scale-in
 * removes the youngest node in most autoscalers; for billing only the lengths matter).
 */
export function lifetimes(steps: StaircaseStep[], durationSeconds: number): Lifetime[] {
  const running: number[] = [];
  const out: Lifetime[] = [];
  for (const s of steps) {
    while (running.length < s.count) running.push(s.fromSecond);
    while (running.length > s.count) {
      const from = running.pop()!;
      out.push({ from, to: s.fromSecond, closed: from > 0 });
    }
  }
  while (running.length) out.push({ from: running.pop()!, to: durationSeconds, closed: false });
  return out;
}

/** Rounds up to a multiple of `granularity`, forgiving float noise (0.1 * 3 is not 0.30000000000000004 s of billing). */
export function roundUpTo(x: number, granularity: number): number {
  if (granularity <= 0) return x;
  return Math.ceil(x / granularity - 1e-9) * granularity;
}

/**
 * Billed seconds of a staircase when each unit is billed per lifetime with a
 * rounding granularity and a minimum (EC2 and Compute Engine: per second, at
 * least 60 s per start). Lifetimes cut by the window are billed as seen: what
 * happened outside it is not known here.
 */
export function billedStaircaseSeconds(
  steps: StaircaseStep[],
  durationSeconds: number,
  granularitySeconds: number,
  minimumSeconds: number,
): number {
  if (granularitySeconds <= 0 && minimumSeconds <= 0) return staircaseSeconds(steps, durationSeconds);
  let sum = 0;
  for (const l of lifetimes(steps, durationSeconds)) {
    const len = l.to - l.from;
    sum += l.closed ? Math.max(minimumSeconds, roundUpTo(len, granularitySeconds)) : len;
  }
  return sum;
}
