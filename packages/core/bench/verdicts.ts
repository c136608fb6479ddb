// npm run bench:verdicts [-- --trials 2000 --seed 2026]
//
// Prints, for every case, how often the comparison calls a difference "significant" with no true difference: each
// must lie between 3% and 7% (Welch's df at 2 runs a side with equal spreads: at most 7%); for the cases that must
// find a difference (0.1% vs 1% failures, fast failures on successful throughput), how often they do (at least 80%);
// for every repetition case, the power at the study planner's recommended repetitions for a true 10% difference (at
// least 80%); the power at 6 runs a side (what the defaults find); and, for single runs without a stated run-to-run
// CV, how often their own interval would have excluded no difference (what the "within-run" label keeps from being
// called significant). The run exits 1 when a case is outside its bar. packages/core/test/verdict-calibration.test.ts
// asserts the same bars on fewer trials.
import { CALIBRATION_CASES, calibrate, FALSE_SIGNIFICANT_BAND, plannedPower } from "../src/statistics/verdict-calibration";

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const trials = option("trials", 2000);
const seed = option("seed", 2026);
const [lo, hi] = FALSE_SIGNIFICANT_BAND;
const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

console.log(
  `bench:verdicts: ${trials} seeded trials a case (seed ${seed}); false "better" must lie in ${Math.round(lo * 100)}%-${Math.round(hi * 100)}%; power at the planner's runs >= 80%`,
);
let failed = 0;
const started = Date.now();
for (const c of CALIBRATION_CASES) {
  const r = calibrate(c, trials, seed);
  const what = {
    power: "power at the runs given",
    "within-run": "within-run (significant never set); runs' interval beyond 0",
    reference: "reference, not held to the band: significant",
    found: `found (${c.expected})`,
    "false-significant": 'false "better"',
  }[c.kind];
  const planned = plannedPower(c, Math.min(trials, 1000), seed);
  const plannedOk = planned === null || planned.power === null || planned.power >= 0.8;
  if (!r.ok || !plannedOk) failed++;
  const flag = c.kind === "false-significant" || c.kind === "found" ? (r.ok && plannedOk ? "ok  " : "FAIL") : "    ";
  const noVerdict = r.noVerdictRate > 0 ? `, no verdict ${percent(r.noVerdictRate)}` : "";
  const plan = planned
    ? `; planner (CV ${percent(planned.cv)}): ${planned.runs ?? ">1000"} runs a side, power ${planned.power === null ? "-" : percent(planned.power)} for a true 10%`
    : "";
  console.log(`  ${flag} ${c.name.padEnd(110)} ${what} ${percent(r.rate)}${noVerdict}${plan}`);
}
console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s)`);
if (failed) {
  console.log(`${failed} case(s) outside their bar`);
  process.exit(1);
}
