import { describe, expect, it } from "vitest";
import { expectedResponseRatio, meanCpuPercent, stableThroughput, twoXxShare, weightedQps } from "../src/statistics/study-definitions";
import { studyMaxThroughput } from "../src/runs/throughput";

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

describe("the studies' metric definitions, against numbers worked by hand", () => {
  it("weighted qps is qps / CPU% (study 002, Table 6-1: Apache on ASG 57233 qps at 99.60% CPU -> 574.6)", () => {
    expect(weightedQps(57233, 99.6)).toBeCloseTo(574.63, 2);
    // EKS: 25515 qps, weighted 260.9 -> CPU 97.8%.
    expect(weightedQps(25515, 97.8)).toBeCloseTo(260.89, 2);
    expect(weightedQps(100, null)).toBeNull();
    expect(weightedQps(100, 0)).toBeNull();
  });

  it("takes the CPU figure as the mean of the target's samples inside the load window", () => {
    const points = [
      { ts: at(0), cpuPercent: 10 }, // before the window
      { ts: at(5), cpuPercent: 60 },
      { ts: at(10), cpuPercent: null },
      { ts: at(15), cpuPercent: 90 },
      { ts: at(40), cpuPercent: 5 }, // after
    ];
    expect(meanCpuPercent(points, at(5), at(30))).toBe(75);
    expect(weightedQps(300, meanCpuPercent(points, at(5), at(30)))).toBe(4);
    expect(meanCpuPercent(points, at(20), at(30))).toBeNull();
  });

  it("maximum throughput counts successful responses of the chosen request only (study 004)", () => {
    // 20 s: checkout completes 10/s for s 0-9 and 30/s for s 10-19, with 50 5xx/s in s 10-19;
    // "cart" adds 100/s throughout. Over checkout's 2xx: the best 10 s window is s 10-19 at 30/s.
    const rows = [];
    for (let s = 0; s < 20; s++) {
      rows.push({ ts: at(s), name: "checkout", class: "2xx", count: s < 10 ? 10 : 30 });
      if (s >= 10) rows.push({ ts: at(s), name: "checkout", class: "5xx", count: 50 });
      rows.push({ ts: at(s), name: "cart", class: "2xx", count: 100 });
    }
    expect(studyMaxThroughput(rows, { requestName: "checkout" })).toEqual({ rps: 30, windowStartOffset: 10, windowSeconds: 10 });
    // All names, successful only: 130/s (the 5xx would have made it 180).
    expect(studyMaxThroughput(rows)!.rps).toBe(130);
    // A window straddling the step: s 5-14 -> (5 x 10 + 5 x 30) / 10 = 20; the maximum is still 30.
    expect(studyMaxThroughput(rows, { requestName: "nothing" })).toBeNull();
    expect(stableThroughput(30)).toBeCloseTo(24, 12);
  });

  it("counts a second with only failures as zero successful responses", () => {
    const rows = [
      { ts: at(0), name: "a", class: "2xx", count: 10 },
      { ts: at(1), name: "a", class: "5xx", count: 10 },
    ];
    expect(studyMaxThroughput(rows, { windowSeconds: 2 })!.rps).toBe(5);
  });

  it("success ratio (study 001) and goodput (study 000) are the 2xx share; k6's expected_response ratio is separate", () => {
    // Study 000, Table 5.1: GKE-50 served 187,615 with 62 failed -> 99.967% goodput.
    expect(twoXxShare({ "2xx": 187_615 - 62, "5xx": 62 })).toBeCloseTo(99.967, 3);
    // A 404 the script expects: 2xx share 90%, expected-response ratio 100%.
    expect(twoXxShare({ "2xx": 90, "4xx": 10 })).toBe(90);
    expect(expectedResponseRatio(100, 0)).toBe(100);
    expect(twoXxShare({})).toBeNull();
    expect(expectedResponseRatio(0, 0)).toBeNull();
  });
});
