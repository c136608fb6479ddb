import { describe, expect, it } from "vitest";
import { inspectedOverLimits, planOverLimits, vusOverPlan } from "../src";

const limits = { maxVUs: 100, maxDurationSeconds: 600, maxArrivalRate: 50 };
const inspected = { maxVUs: 1, totalDurationSeconds: 60, options: {} };

describe("k6 run's own plan against the limits and inspect's answer", () => {
  it("passes a plan that matches inspect and stays within the limits", () => {
    expect(planOverLimits({ maxVUs: 1, durationSeconds: 60, peakArrivalRate: 0 }, limits, inspected)).toEqual([]);
    expect(inspectedOverLimits(inspected, limits)).toEqual([]);
  });

  it("names a plan above what inspect said, and above each limit", () => {
    expect(planOverLimits({ maxVUs: 500, durationSeconds: 60, peakArrivalRate: 0 }, limits, inspected)).toEqual([
      "k6 run planned 500 VUs; the run's limit maxVUs is 100",
      "k6 run planned 500 VUs where k6 inspect of the same script said 1 (the script tells k6 inspect and k6 run apart)",
    ]);
    expect(planOverLimits({ maxVUs: 1, durationSeconds: 3600, peakArrivalRate: 80 }, limits, null)).toEqual([
      "k6 run planned 3600 s; the run's limit maxDurationSeconds is 600",
      "k6 run planned 80 iterations/s; the run's limit maxArrivalRate is 50",
    ]);
    const rated = { ...inspected, options: { scenarios: { a: { executor: "constant-arrival-rate", rate: 10, timeUnit: "1s" } } } };
    expect(planOverLimits({ maxVUs: 1, durationSeconds: 60, peakArrivalRate: 20 }, null, rated)[0]).toContain(
      "planned 20 iterations/s where k6 inspect of the same script said 10",
    );
    expect(inspectedOverLimits({ maxVUs: 200, totalDurationSeconds: 60, options: {} }, limits)).toEqual([
      "k6 inspect says the script uses up to 200 VUs; the run's limit maxVUs is 100",
    ]);
  });

  it("catches more VUs running than planned", () => {
    expect(vusOverPlan(5, 5)).toBeNull();
    expect(vusOverPlan(6, 5)).toBe("k6 ran 6 VUs at once; at most 5 were allowed");
  });
});
