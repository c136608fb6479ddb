// npm run bench:verdicts [-- --trials 1000 --seed 2026]
//
// Prints how often the comparison calls a difference "significant": with no true
// difference (should be about 5%, at most 7%) and with a true 10% difference
// (the power, at least 80%). packages/core/test/verdict-calibration.test.ts asserts the bounds.
import { CALIBRATION_CASES, calibrate } from "../src/statistics/verdict-calibration";

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const trials = option("trials", 1000);
const seed = option("seed", 2026);

console.log(`bench:verdicts: ${trials} seeded trials a case (seed ${seed}); bounds: false "significant" <= 7%, power >= 80%`);
let failed = 0;
for (const c of CALIBRATION_CASES) {
  const r = calibrate(c, trials, seed);
  const power = c.trueDifference !== 0;
  const ok = power ? r.significantRate >= 0.8 : r.significantRate <= 0.07;
  if (!ok) failed++;
  const what = power ? "power" : "false significant";
  const noVerdict = r.noVerdictRate > 0 ? `, no verdict ${(100 * r.noVerdictRate).toFixed(1)}%` : "";
  console.log(`  ${ok ? "ok  " : "FAIL"} ${c.name.padEnd(52)} ${what} ${(100 * r.significantRate).toFixed(1)}%${noVerdict}`);
}
if (failed) {
  console.log(`${failed} case(s) outside the bounds`);
  process.exit(1);
}
