// What the compare page's verdict card reads of a verdict (issue 35): the difference relative to the baseline with its
// interval, the power one more round of runs would give, and why a single run a side has no interval.
import { describe, expect, it } from "vitest";
import { compareGroups, powerWithMoreRuns, relativeDifference, type VerdictSample } from "../src/statistics/verdict-method";
import { rulePower } from "../src/statistics/rule-power";

const runs = (values: number[]): VerdictSample => ({ kind: "runs", values });
const seconds = (values: number[]): VerdictSample => ({ kind: "seconds", values });
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

describe("the verdict card's figures", () => {
  it("a positive quantity's relative interval starts no lower than -100% (two runs far apart), a real one's as computed", () => {
    const [a, b] = [
      [2, 2.8],
      [2.2, 4.5],
    ];
    const v = compareGroups("p95", { label: "A", sample: runs(a) }, { label: "B", sample: runs(b) }, { lowerIsBetter: true });
    expect(v.low! / mean(a)).toBeLessThan(-1); // the Welch interval of the difference reaches below -A's mean
    expect(relativeDifference(v)!.low).toBe(-1);
    expect(relativeDifference(v)!.high).toBeCloseTo(v.high! / mean(a), 12);
  });
  it("relative difference: the difference over the baseline's mean, its interval likewise; odds ratio less 1 for shares", () => {
    const [a, b] = [
      [10, 12, 14],
      [20, 22, 24, 26],
    ];
    const v = compareGroups("req/s", { label: "A", sample: runs(a) }, { label: "B", sample: runs(b) }, { lowerIsBetter: false });
    const r = relativeDifference(v)!;
    expect(r.of).toBe("value");
    expect(r.estimate).toBeCloseTo((mean(b) - mean(a)) / mean(a), 12);
    expect(r.low).toBeCloseTo(v.low! / 12, 12);
    expect(r.high).toBeCloseTo(v.high! / 12, 12);
    const share = compareGroups(
      "failure share",
      { label: "A", sample: { kind: "runs", values: [1, 1.2, 0.8], denominators: [1000, 1000, 1000], scale: 100 } },
      { label: "B", sample: { kind: "runs", values: [2, 2.4, 1.6], denominators: [1000, 1000, 1000], scale: 100 } },
      { lowerIsBetter: true, scale: "log-odds", margin: 0.5 },
    );
    const odds = relativeDifference(share)!;
    expect(odds.of).toBe("odds");
    expect(odds.estimate).toBeCloseTo(share.estimate! - 1, 12);
    expect(
      relativeDifference(
        compareGroups("p95", { label: "A", sample: runs([1]) }, { label: "B", sample: runs([2]) }, { lowerIsBetter: true }),
      ),
    ).toBeNull();
  });

  it("one more round: no runs added gives the verdict's own power; one more a side gives more", () => {
    const v = compareGroups(
      "p95",
      { label: "A", sample: runs([100, 108, 95]) },
      { label: "B", sample: runs([112, 121, 104]) },
      { lowerIsBetter: true },
    );
    expect(v.power).not.toBeNull();
    expect(powerWithMoreRuns(v, 0)!.power).toBeCloseTo(v.power!, 12);
    const next = powerWithMoreRuns(v, 1)!;
    expect(next.runs).toEqual([4, 4]);
    // The same per-run variance over 4 runs a side: se^2 = s^2 (1/4 + 1/4), where now it is s^2 (1/3 + 1/3).
    const se = v.standardError! * Math.sqrt((1 / 4 + 1 / 4) / (1 / 3 + 1 / 3));
    const rule = { level: 0.95, familySize: 1, band: 0.05 * v.baselineMean! };
    expect(next.power).toBeCloseTo(rulePower(0.1 * v.baselineMean!, se, v.df! + 1, rule), 12);
    expect(next.power).toBeGreaterThan(v.power!);
  });

  it("single runs: within-run verdicts state no power; a run without per-second values is told why, not that it lacks 30 s", () => {
    const ramp = (n: number, level: number) => Array.from({ length: n }, (_, i) => level + ((i * 7) % 10));
    const within = compareGroups(
      "p95",
      { label: "A", sample: seconds(ramp(119, 300)) },
      { label: "B", sample: seconds(ramp(119, 1400)) },
      { lowerIsBetter: true },
    );
    expect(within.scope).toBe("within-run");
    expect(powerWithMoreRuns(within, 1)).toBeNull();
    const whole = compareGroups(
      "p95 (all responses)",
      { label: "A", sample: seconds([]) },
      { label: "B", sample: seconds([]) },
      { lowerIsBetter: true },
    );
    expect(whole.reason).toBe(
      "a single run has no per-second series of this metric (a whole-run value): 2 or more runs a side give it an interval",
    );
    const short = compareGroups(
      "p95",
      { label: "A", sample: seconds(ramp(20, 300)) },
      { label: "B", sample: seconds(ramp(20, 310)) },
      { lowerIsBetter: true },
    );
    expect(short.reason).toBe("the load window holds 20 s of per-second data; a single run a side needs at least 30 s");
  });
});
