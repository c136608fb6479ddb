// npm run bench:verdicts [-- --trials 2000 --seed 2026]
//
// Prints, for every case, how often the comparison calls a difference "significant" with no true difference: each
// must lie between 3% and 7% (the run exits 1 otherwise); the power at 6 runs a side for a true 10% difference; and,
// for single runs without a stated run-to-run CV, how often their own interval would have excluded no difference
// (what the "within-run" label keeps from being called significant). packages/core/test/verdict-calibration.test.ts
// asserts the same band.
import { CALIBRATION_CASES, calibrate, FALSE_SIGNIFICANT_BAND } from "../src/statistics/verdict-calibration";

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const trials = option("trials", 2000);
const seed = option("seed", 2026);
const [lo, hi] = FALSE_SIGNIFICANT_BAND;

console.log(
  `bench:verdicts: ${trials} seeded trials a case (seed ${seed}); false "significant" must lie in ${Math.round(lo * 100)}%-${Math.round(hi * 100)}%`,
);
let failed = 0;
const started = Date.now();
for (const c of CALIBRATION_CASES) {
  const r = calibrate(c, trials, seed);
  if (!r.ok) failed++;
  const what =
    c.kind === "power"
      ? "power"
      : c.kind === "within-run"
        ? "within-run (significant never set); runs' interval beyond 0"
        : c.kind === "reference"
          ? "reference, not held to the band: significant"
          : "false significant";
  const flag = c.kind === "false-significant" ? (r.ok ? "ok  " : "FAIL") : "    ";
  const noVerdict = r.noVerdictRate > 0 ? `, no verdict ${(100 * r.noVerdictRate).toFixed(1)}%` : "";
  console.log(`  ${flag} ${c.name.padEnd(92)} ${what} ${(100 * r.rate).toFixed(1)}%${noVerdict}`);
}
console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s)`);
if (failed) {
  console.log(`${failed} case(s) outside ${Math.round(lo * 100)}%-${Math.round(hi * 100)}%`);
  process.exit(1);
}
