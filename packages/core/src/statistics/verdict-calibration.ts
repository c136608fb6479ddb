// How often the comparison says "significant" when it should not (and how
// often it does when it should), on synthetic groups drawn from a seed: the
// calibration `npm run bench:verdicts` prints and a unit test bounds.
import { seededRandom } from "../seeded-random";
import { compareGroups, DEFAULT_EQUIVALENCE_MARGIN, type VerdictSample } from "./verdict-method";

export interface CalibrationCase {
  name: string;
  /** Runs a side; 1 means a single run a side, judged over its per-second series. */
  runs: number;
  /** Seconds per run. */
  seconds: number;
  /** Lag-1 autocorrelation of each run's per-second series (AR(1)). */
  autocorrelation: number;
  /** True relative difference of the candidate's mean (0: none). */
  trueDifference: number;
  /** Run-to-run coefficient of variation of a run's mean. */
  runToRunCv: number;
  /**
   * Practical-equivalence margin. The no-difference cases use 0 (the interval
   * alone decides: the strictest test of its calibration); the power case the
   * default 5%, as a user would see it.
   */
  margin: number;
}

export interface CalibrationResult extends CalibrationCase {
  trials: number;
  /** Share of trials with a "significant" verdict (in the true direction when there is a difference). */
  significantRate: number;
  noVerdictRate: number;
}

/** The cases the issue names: no true difference at 2, 3, 5, 10 (and 30) runs a side, iid and autocorrelated; single runs of 300 s; and the power case. */
export const CALIBRATION_CASES: CalibrationCase[] = [
  ...[2, 3, 5, 10, 30].flatMap((runs) =>
    [0, 0.8].map((autocorrelation) => ({
      name: `${runs} runs a side, ${autocorrelation ? `autocorrelation ${autocorrelation}` : "iid"}`,
      runs,
      seconds: 60,
      autocorrelation,
      trueDifference: 0,
      runToRunCv: 0.05,
      margin: 0,
    })),
  ),
  ...[0, 0.5, 0.8, 0.95].map((autocorrelation) => ({
    name: `single runs of 300 s, ${autocorrelation ? `autocorrelation ${autocorrelation}` : "iid"}`,
    runs: 1,
    seconds: 300,
    autocorrelation,
    trueDifference: 0,
    runToRunCv: 0,
    margin: 0,
  })),
  {
    name: "power: true 10% difference, CV 5%, 6 runs a side",
    runs: 6,
    seconds: 60,
    autocorrelation: 0.5,
    trueDifference: 0.1,
    runToRunCv: 0.05,
    margin: DEFAULT_EQUIVALENCE_MARGIN,
  },
];

const LEVEL = 100;
/** Per-second noise of a run, relative to the level (10%: req/s of a busy second varies). */
const SECOND_CV = 0.1;

function normals(seed: number): () => number {
  const rand = seededRandom(seed);
  return () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** One run: a run-level offset plus an AR(1) series with the given lag-1 autocorrelation and stationary SD. */
function run(normal: () => number, level: number, c: CalibrationCase): number[] {
  const rho = c.autocorrelation;
  const innovation = SECOND_CV * level * Math.sqrt(1 - rho * rho);
  const offset = c.runToRunCv * level * normal();
  let x = SECOND_CV * level * normal();
  const out: number[] = [];
  for (let i = 0; i < c.seconds; i++) {
    if (i > 0) x = rho * x + innovation * normal();
    out.push(level + offset + x);
  }
  return out;
}

function group(normal: () => number, level: number, c: CalibrationCase): VerdictSample {
  if (c.runs === 1) return { kind: "seconds", values: run(normal, level, c) };
  return {
    kind: "runs",
    values: Array.from({ length: c.runs }, () => {
      const r = run(normal, level, c);
      return r.reduce((a, v) => a + v, 0) / r.length;
    }),
  };
}

/** Runs `trials` seeded comparisons of one case (lower is better, as for latency). */
export function calibrate(c: CalibrationCase, trials = 1000, seed = 2026): CalibrationResult {
  const normal = normals(seed);
  let significant = 0;
  let noVerdict = 0;
  for (let t = 0; t < trials; t++) {
    const a = group(normal, LEVEL, c);
    const b = group(normal, LEVEL * (1 - c.trueDifference), c);
    const v = compareGroups(
      "value",
      { label: "A", sample: a },
      { label: "B", sample: b },
      {
        lowerIsBetter: true,
        margin: c.margin,
        seed: t + 1,
        resamples: 1000,
      },
    );
    if (v.outcome === "no-verdict") noVerdict++;
    if (c.trueDifference === 0 ? v.significant : v.outcome === "candidate-better") significant++;
  }
  return { ...c, trials, significantRate: significant / trials, noVerdictRate: noVerdict / trials };
}
