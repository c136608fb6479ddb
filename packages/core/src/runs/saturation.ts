// Did a run find the target's limit? A capacity (the break-even's "one more replica per N req/s",
// a stable-at-X% rate's maximum) means something only when the load went past what the target
// could serve; the highest req/s of a run whose load never got there is only the offered load.
// The signs, in the order they are looked for (docs/cost.md, "Capacity"):
// - a knee: the offered load (VUs, or iterations scheduled per second) rose by KNEE_OFFERED_RISE or
//   more between two steps while successful req/s rose by less than KNEE_THROUGHPUT_RISE;
// - dropped iterations: k6 dropped DROPPED_SHARE or more of the iterations it scheduled;
// - latency: the last step's p95 is over LATENCY_RISE times the first step's while the offered load
//   rose by KNEE_OFFERED_RISE or more and successful req/s grew by less than half as much (relatively).
import { bucketize, type LoadSecondRow, type ResultCell } from "./latency-summary";

/** Offered load between two steps must rise by this factor (+25%) for a knee or a latency sign to count. */
export const KNEE_OFFERED_RISE = 1.25;
/** ... while successful req/s rose by less than this factor (+5%): the knee. */
export const KNEE_THROUGHPUT_RISE = 1.05;
/** Dropped iterations at or above this share (1%) of the iterations k6 scheduled. */
export const DROPPED_SHARE = 0.01;
/** The last step's p95 over this many times the first step's. */
export const LATENCY_RISE = 2;
/** A step: this many seconds of the load window (10 s, as the run's charts bucket it). */
export const STEP_SECONDS = 10;

/** One step of a run's load: what was offered, what succeeded, how slow successful responses were. */
export interface LoadStep {
  /** Seconds from the load start to the step's start. */
  offsetSeconds: number;
  /** Offered load: mean VUs, or iterations scheduled (completed + dropped) per second; see `offeredBy`. */
  offered: number;
  /** Successful (2xx) responses per second. */
  okRps: number;
  /** p95 of successful responses (ms); null without one. */
  p95Ms: number | null;
  droppedIterations: number;
  iterations: number;
}

export type SaturationRule = "knee" | "dropped-iterations" | "latency";

export interface Saturation {
  saturated: boolean;
  /** The sign found; null when none was. */
  rule: SaturationRule | null;
  /** Successful req/s at the limit (the plateau's mean, or what was served while iterations dropped); null when not saturated. */
  capacityRps: number | null;
  /** In words, with the numbers: why it is or is not saturated. */
  why: string;
}

const round = (v: number) => Math.round(v * 100) / 100;
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The sign of a limit in a run's steps (time order), or a saturation of false saying what was looked for. */
export function saturationOfSteps(steps: readonly LoadStep[], offeredBy: "vus" | "arrival-rate"): Saturation {
  const what = offeredBy === "vus" ? "VUs" : "iterations scheduled per second";
  const live = steps.filter((s) => s.offered > 0);
  // Knee: the earliest step after which the offered load rose 25%+ and successful req/s did not follow (+5% at most).
  for (let a = 0; a < live.length; a++) {
    const from = live[a]!;
    if (!(from.okRps > 0)) continue;
    const past = live
      .slice(a + 1)
      .find((b) => b.offered >= KNEE_OFFERED_RISE * from.offered && b.okRps < KNEE_THROUGHPUT_RISE * from.okRps);
    if (!past) continue;
    const plateau = live.slice(a).filter((s) => s.offered >= from.offered);
    const capacityRps = round(mean(plateau.map((s) => s.okRps)));
    return {
      saturated: true,
      rule: "knee",
      capacityRps,
      why: `a knee: ${what} rose from ${round(from.offered)} to ${round(past.offered)} (at ${from.offsetSeconds} s and ${past.offsetSeconds} s) while successful req/s stayed at ${round(from.okRps)} -> ${round(past.okRps)}; capacity ${capacityRps} req/s, the mean of the ${plateau.length} steps from the knee on`,
    };
  }
  const dropped = steps.reduce((n, s) => n + s.droppedIterations, 0);
  const scheduled = dropped + steps.reduce((n, s) => n + s.iterations, 0);
  if (scheduled > 0 && dropped / scheduled >= DROPPED_SHARE) {
    const dropping = steps.filter((s) => s.droppedIterations > 0);
    const capacityRps = round(mean(dropping.map((s) => s.okRps)));
    return {
      saturated: true,
      rule: "dropped-iterations",
      capacityRps,
      why: `k6 dropped ${dropped} of ${scheduled} scheduled iterations (${round((100 * dropped) / scheduled)}%, at least ${DROPPED_SHARE * 100}%): the target did not keep up; capacity ${capacityRps} req/s, the mean over the ${dropping.length} steps that dropped`,
    };
  }
  if (live.length < 2) {
    const why =
      steps.length < 2
        ? `too short to tell: ${steps.length} whole ${STEP_SECONDS} s step${steps.length === 1 ? "" : "s"} (2 needed to see the load rise)`
        : "the offered load was not recorded (no VUs or iteration counts per second)";
    return { saturated: false, rule: null, capacityRps: null, why: `${why}, no dropped iterations; capacity unknown` };
  }
  const timed = live.filter((s) => s.p95Ms !== null && s.p95Ms > 0 && s.okRps > 0);
  const first = timed[0];
  const last = timed.at(-1);
  if (first && last && last !== first) {
    const offeredRise = last.offered / first.offered;
    const throughputRise = last.okRps / first.okRps;
    if (offeredRise >= KNEE_OFFERED_RISE && last.p95Ms! > LATENCY_RISE * first.p95Ms! && throughputRise - 1 < (offeredRise - 1) / 2) {
      const capacityRps = round(Math.max(...timed.map((s) => s.okRps)));
      return {
        saturated: true,
        rule: "latency",
        capacityRps,
        why: `latency rose with the load: p95 ${round(first.p95Ms!)} -> ${round(last.p95Ms!)} ms (over ${LATENCY_RISE}x) as ${what} rose x${round(offeredRise)} and successful req/s only x${round(throughputRise)}; capacity ${capacityRps} req/s, the best step`,
      };
    }
  }
  const peak = Math.max(...live.map((s) => s.offered));
  return {
    saturated: false,
    rule: null,
    capacityRps: null,
    why: `no limit reached: successful req/s followed the offered load (up to ${round(peak)} ${what}), ${dropped} dropped iterations, no p95 doubling with throughput flat; its highest req/s is the offered load, capacity unknown`,
  };
}

/** What of a second's load row (one per second: mergeLoadSeconds) the steps read. */
type StepLoadSecond = Pick<LoadSecondRow, "ts" | "vus" | "iterations" | "droppedIterations">;

/**
 * A run's steps: its measured cells and load seconds (one row per second, generators merged) in STEP_SECONDS
 * buckets from the load start; only whole buckets (a last, shorter one would read as a drop in req/s). The offered
 * load is VUs when they changed (max over min step of 1.25 or more: a VU ramp), else iterations scheduled per second.
 */
export function loadSteps(
  cells: readonly ResultCell[],
  load: readonly StepLoadSecond[],
  loadStart: Date,
  stepSeconds = STEP_SECONDS,
): { steps: LoadStep[]; offeredBy: "vus" | "arrival-rate" } {
  const startSecond = Math.floor(loadStart.getTime() / 1000);
  let seconds = 0;
  for (const c of [...cells, ...load]) seconds = Math.max(seconds, Math.floor(c.ts.getTime() / 1000) - startSecond + 1);
  const whole = Math.floor(seconds / stepSeconds);
  const buckets = bucketize(cells, new Date(startSecond * 1000), stepSeconds);
  const byOffset = new Map(buckets.map((b) => [b.offsetSeconds, b]));
  // Successful (2xx) responses per step, counted from the cells (study 004's maximum counts the same).
  const okByStep = new Map<number, number>();
  for (const c of cells) {
    if (c.class !== "2xx") continue;
    const k = Math.floor((Math.floor(c.ts.getTime() / 1000) - startSecond) / stepSeconds);
    okByStep.set(k, (okByStep.get(k) ?? 0) + c.count);
  }
  const steps: LoadStep[] = [];
  for (let i = 0; i < whole; i++) {
    const offsetSeconds = i * stepSeconds;
    const b = byOffset.get(offsetSeconds);
    const inStep = load.filter((l) => {
      const s = Math.floor(l.ts.getTime() / 1000) - startSecond;
      return s >= offsetSeconds && s < offsetSeconds + stepSeconds;
    });
    const iterations = inStep.reduce((n, l) => n + l.iterations, 0);
    const droppedIterations = inStep.reduce((n, l) => n + l.droppedIterations, 0);
    steps.push({
      offsetSeconds,
      offered: inStep.length ? mean(inStep.map((l) => l.vus)) : 0,
      okRps: (okByStep.get(i) ?? 0) / stepSeconds,
      p95Ms: b?.p95Ms ?? null,
      droppedIterations,
      iterations,
    });
  }
  const vus = steps.map((s) => s.offered).filter((v) => v > 0);
  const vuRamp = vus.length > 1 && Math.max(...vus) >= KNEE_OFFERED_RISE * Math.min(...vus);
  if (vuRamp) return { steps, offeredBy: "vus" };
  return { steps: steps.map((s) => ({ ...s, offered: (s.iterations + s.droppedIterations) / stepSeconds })), offeredBy: "arrival-rate" };
}

/** Whether a run saturated, from its measured cells and load seconds. */
export function runSaturation(cells: readonly ResultCell[], load: readonly StepLoadSecond[], loadStart: Date | null): Saturation {
  if (!loadStart || cells.length === 0)
    return { saturated: false, rule: null, capacityRps: null, why: "nothing was measured: capacity unknown" };
  const { steps, offeredBy } = loadSteps(cells, load, loadStart);
  return saturationOfSteps(steps, offeredBy);
}
