import { describe, expect, it } from "vitest";
import { maxThroughput } from "../src/runs/throughput";

const at = (second: number, requests: number) => ({ ts: new Date(1_700_000_000_000 + second * 1000), requests });

describe("max throughput (highest 10 s moving average, study 004)", () => {
  it("finds the best 10 s window, counting silent seconds as zero", () => {
    // 0-9: 100/s; 10-19: 300/s except a silent second 15; 20-29: 200/s
    const seconds = [];
    for (let s = 0; s < 30; s++) if (s !== 15) seconds.push(at(s, s < 10 ? 100 : s < 20 ? 300 : 200));
    const r = maxThroughput(seconds)!;
    // Every 10 s window touching 10-19 includes the silent second: 10..19 = 9*300 = 2700 is best.
    expect(r).toEqual({ rps: 270, windowStartOffset: 10, windowSeconds: 10 });
  });

  it("merges cells of the same second and averages short runs over what they have", () => {
    expect(maxThroughput([at(0, 5), at(0, 5), at(1, 20)])).toEqual({ rps: 15, windowStartOffset: 0, windowSeconds: 2 });
    expect(maxThroughput([])).toBeNull();
  });
});
