import { describe, expect, it } from "vitest";
import { CALIBRATION_CASES, calibrate, FALSE_SIGNIFICANT_BAND } from "../src/statistics/verdict-calibration";

// Issue 22's bar: with no true difference, between 3% and 7% "significant" in seeded trials for every case
// (repetitions, unequal n and variances, heavy tails, outlier runs, single runs with a stated run-to-run CV, whole-run
// percentiles of runs at different rates); single runs without a stated CV are never significant (calibrate throws);
// the power at 6 runs a side for a true 10% difference is at least 80% at margin 0. `npm run bench:verdicts` prints
// the same rates at 2,000 trials. The slow percentile cases run here at 500 trials.
describe("calibration of the comparison's verdicts", () => {
  for (const c of CALIBRATION_CASES.filter((c) => c.kind !== "reference")) {
    it(c.name, () => {
      const r = calibrate(c, c.name.includes("p99") ? 500 : 1000);
      if (c.kind === "false-significant") {
        expect(r.rate).toBeGreaterThanOrEqual(FALSE_SIGNIFICANT_BAND[0]);
        expect(r.rate).toBeLessThanOrEqual(FALSE_SIGNIFICANT_BAND[1]);
      } else if (c.kind === "power" && c.margin === 0) expect(r.rate).toBeGreaterThanOrEqual(0.8);
      else if (c.kind === "within-run") expect(r.rate).toBeGreaterThan(0.3);
    });
  }
});
