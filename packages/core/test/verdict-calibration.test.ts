import { describe, expect, it } from "vitest";
import { CALIBRATION_CASES, calibrate } from "../src/statistics/verdict-calibration";

// The bar: with no true difference, at most 7% "significant" in 1,000
// seeded trials for every case; with a true 10% difference (CV 5%, 6 runs a
// side), at least 80% power. `npm run bench:verdicts` prints the same rates.
describe("calibration of the comparison's verdicts", () => {
  for (const c of CALIBRATION_CASES) {
    it(c.name, () => {
      const r = calibrate(c, 1000);
      if (c.trueDifference === 0) expect(r.significantRate).toBeLessThanOrEqual(0.07);
      else expect(r.significantRate).toBeGreaterThanOrEqual(0.8);
    });
  }
});
