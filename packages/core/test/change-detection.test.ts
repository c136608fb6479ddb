import { describe, expect, it } from "vitest";
import { changeCommitRange, detectChanges, type SeriesPoint, seededRandom } from "../src";

/** A seeded series: `levels[i]` with lognormal noise `noise` (log-SD), each run's own 95% half-width `half` (relative). */
function series(levels: readonly number[], noise: number, seed: number, half = 0.03): SeriesPoint[] {
  const random = seededRandom(seed);
  const z = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return levels.map((level) => {
    const value = level * Math.exp(noise * z());
    return { value, low: value * Math.exp(-half), high: value * Math.exp(half) };
  });
}
const steps = (...parts: [level: number, runs: number][]) => parts.flatMap(([level, runs]) => Array<number>(runs).fill(level));
const exact = (values: readonly number[], half = 0): SeriesPoint[] =>
  values.map((v) => ({ value: v, low: v * (1 - half), high: v * (1 + half) }));

describe("detectChanges", () => {
  it("finds a clear step at its index, with the levels either side", () => {
    const found = detectChanges(series(steps([100, 15], [120, 15]), 0.02, 1));
    expect(found).toHaveLength(1);
    expect(found[0]!.index).toBe(15);
    expect(found[0]!.before).toBeCloseTo(100, -1);
    expect(found[0]!.after).toBeCloseTo(120, -1);
    expect(found[0]!.relative).toBeCloseTo(found[0]!.after / found[0]!.before - 1, 12);
    expect(found[0]!.relative).toBeGreaterThan(0.15);
  });

  it("finds none in most flat noisy series", () => {
    expect(detectChanges(series(steps([100, 60]), 0.05, 2))).toEqual([]);
    expect(detectChanges(series(steps([100, 30]), 0.03, 3))).toEqual([]);
    // Tuned for quick detection (docs/statistics.md): about a quarter of flat 60-run series end with a change
    // reported somewhere (bench:changes counts ~3 false alarms per 60 runs as a series grows). A threshold
    // gone wrong would flag most of them.
    let withChange = 0;
    for (let seed = 100; seed < 140; seed++) if (detectChanges(series(steps([100, 60]), 0.05, seed)).length > 0) withChange++;
    expect(withChange).toBeLessThanOrEqual(14);
  });

  it("finds both of two steps", () => {
    const found = detectChanges(series(steps([100, 15], [125, 15], [100, 15]), 0.03, 3));
    expect(found.map((c) => c.index)).toEqual([15, 30]);
    expect(found[0]!.relative).toBeGreaterThan(0.15);
    expect(found[1]!.relative).toBeLessThan(-0.15);
  });

  it("is the same at any level (log scale)", () => {
    const a = series(steps([100, 15], [115, 15]), 0.03, 4);
    const b = a.map((p) => ({ value: p.value * 1000, low: p.low * 1000, high: p.high * 1000 }));
    const fa = detectChanges(a);
    const fb = detectChanges(b);
    expect(fa.length).toBeGreaterThan(0);
    expect(fb.map((c) => c.index)).toEqual(fa.map((c) => c.index));
    for (const [i, c] of fb.entries()) expect(c.relative).toBeCloseTo(fa[i]!.relative, 10);
  });

  it("lets the runs' intervals weigh: two odd runs with narrow intervals are an excursion, with wide ones not", () => {
    const values = series(steps([100, 30]), 0.02, 5, 0.02);
    const odd = (half: number) =>
      values.map((p, i) => (i === 14 || i === 15 ? { value: 130, low: 130 * Math.exp(-half), high: 130 * Math.exp(half) } : p));
    expect(detectChanges(odd(0.02)).map((c) => c.index)).toEqual([14, 16]);
    // +-60%: each of the two runs says little on its own, and they neither make a change nor move a level.
    expect(detectChanges(odd(0.6))).toEqual([]);
  });

  it("does not flag a step smaller than the runs' own resolution, unless told a smaller floor", () => {
    // +-10% intervals, 1% scatter: a 5% step over 30 runs a side stands out of the scatter, but one run cannot see it.
    const points = series(steps([100, 30], [105, 30]), 0.01, 6, 0.1);
    expect(detectChanges(points)).toEqual([]);
    expect(detectChanges(points, { minRelativeChange: 0.01 }).map((c) => c.index)).toEqual([30]);
  });

  it("reports a clear step by the time 3 runs after it are in, as the series grows", () => {
    const full = series(steps([100, 40], [120, 10]), 0.03, 7);
    const firstSeen = [41, 42, 43, 44, 45, 46].find((n) => detectChanges(full.slice(0, n)).some((c) => c.index === 40));
    expect(firstSeen).toBeLessThanOrEqual(43);
  });

  it("handles the edges: fewer than 4 points, constant values, exact steps", () => {
    expect(detectChanges([])).toEqual([]);
    expect(detectChanges(exact([1, 2, 3]))).toEqual([]);
    expect(detectChanges(exact([5, 5, 5, 5, 5, 5, 5, 5]))).toEqual([]);
    expect(detectChanges(exact([5, 5, 5, 5, 5, 5, 5, 5], 0.1))).toEqual([]);
    const step = detectChanges(exact([5, 5, 5, 5, 10, 10, 10, 10]));
    expect(step).toEqual([{ index: 4, before: expect.closeTo(5, 9), after: expect.closeTo(10, 9), relative: expect.closeTo(1, 9) }]);
  });

  it("refuses values it cannot take, naming the point", () => {
    expect(() => detectChanges(exact([5, 5, 0, 5, 5]))).toThrow(/point 2 has value 0.*log scale.*> 0/);
    expect(() => detectChanges(exact([5, -1, 5, 5, 5]))).toThrow(/point 1 has value -1/);
    expect(() => detectChanges([...exact([5, 5, 5]), { value: 5, low: 6, high: 7 }])).toThrow(
      /point 3 has value 5 outside its interval \[6, 7\]/,
    );
    expect(() => detectChanges([...exact([5, 5, 5]), { value: Number.NaN, low: 4, high: 6 }])).toThrow(/point 3 has value NaN/);
    expect(() => detectChanges(exact([5, 5, 5, 5]), { minSegment: 0 })).toThrow(/minSegment/);
  });

  it("takes an interval whose low end is 0 by its upper half", () => {
    const points = [...exact([5, 5, 5, 5, 10, 10, 10, 10], 0.01)];
    points[1] = { value: 5, low: 0, high: 5.05 };
    expect(detectChanges(points).map((c) => c.index)).toEqual([4]);
  });
});

describe("changeCommitRange", () => {
  const points = [{ commit: "a1" }, { commit: "b2" }, { commit: null }, {}, { commit: "e5" }, { commit: "e5" }];

  it("names the last commit before the change and the first from it on", () => {
    expect(changeCommitRange(points, { index: 1 })).toEqual({ lastBefore: "a1", firstAfter: "b2", sameCommit: false });
  });

  it("widens past runs with no commit", () => {
    expect(changeCommitRange(points, { index: 3 })).toEqual({ lastBefore: "b2", firstAfter: "e5", sameCommit: false });
    expect(changeCommitRange([{}, {}, { commit: "c" }], { index: 1 })).toEqual({ lastBefore: null, firstAfter: "c", sameCommit: false });
  });

  it("says when both sides ran the same commit", () => {
    expect(changeCommitRange(points, { index: 5 })).toEqual({ lastBefore: "e5", firstAfter: "e5", sameCommit: true });
  });

  it("refuses an index outside the series", () => {
    expect(() => changeCommitRange(points, { index: 0 })).toThrow(/index 0 is not inside a series of 6 points/);
    expect(() => changeCommitRange(points, { index: 6 })).toThrow(/index 6/);
  });
});
