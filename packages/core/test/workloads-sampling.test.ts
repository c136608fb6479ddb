// The samplers generated scripts carry, run from the very source they embed.
import { describe, expect, it } from "vitest";
import { K6_RUNTIME_SOURCE, compileK6Script, loadRuntime, seededRandom, workloadSpec } from "../src/index";

const rt = loadRuntime();

function zipfProbabilities(n: number, s: number): number[] {
  const w = Array.from({ length: n }, (_, i) => (i + 1) ** -s);
  const total = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / total);
}

function histogram(sample: () => number, n: number, draws: number): number[] {
  const counts = new Array<number>(n + 1).fill(0);
  for (let i = 0; i < draws; i++) counts[sample()]!++;
  return counts;
}

/** Pearson's chi-square of observed counts against expected probabilities. */
function chiSquare(counts: number[], probs: number[], draws: number): number {
  return probs.reduce((sum, p, i) => sum + (counts[i]! - draws * p) ** 2 / (draws * p), 0);
}

describe("Zipf sampler (rejection-inversion)", () => {
  it.each([
    [100, 1.25], // study 004's exponent
    [100, 1], // the exponent where the integral of x^-s is a logarithm
    [50, 0.5],
    [20, 3],
  ])("matches Zipf(n=%i, s=%f) exactly in distribution (chi-square, 200,000 draws)", (n, s) => {
    const draws = 200_000;
    const sample = rt.obZipf(n, s, seededRandom(n * 1000 + s * 100));
    const counts = histogram(sample, n, draws);
    expect(counts[0]).toBe(0); // ranks start at 1
    const probs = zipfProbabilities(n, s);
    const observed = counts.slice(1);
    // Critical value of chi-square with n-1 degrees of freedom at p = 0.001 (Wilson-Hilferty).
    const df = n - 1;
    const critical = df * (1 - 2 / (9 * df) + 3.09 * Math.sqrt(2 / (9 * df))) ** 3;
    expect(chiSquare(observed, probs, draws)).toBeLessThan(critical);
    // The head of the distribution, rank by rank.
    for (let k = 0; k < 3; k++) expect(Math.abs(observed[k]! / draws - probs[k]!)).toBeLessThan(0.005);
  });

  it("a uniform sampler would fail the same test (the test can fail)", () => {
    const draws = 200_000;
    const r = seededRandom(7);
    const counts = histogram(() => 1 + Math.floor(r() * 100), 100, draws);
    expect(chiSquare(counts.slice(1), zipfProbabilities(100, 1.25), draws)).toBeGreaterThan(10_000);
  });

  it("stays in range for a large key space and a single key", () => {
    const big = rt.obZipf(1_000_000, 1.25, seededRandom(1));
    for (let i = 0; i < 10_000; i++) {
      const k = big();
      expect(k >= 1 && k <= 1_000_000 && Number.isInteger(k)).toBe(true);
    }
    const one = rt.obZipf(1, 1.25, seededRandom(2));
    expect(new Set(Array.from({ length: 100 }, one))).toEqual(new Set([1]));
  });
});

describe("key and request choice", () => {
  it("picks row indices: zipf from 0 (the hottest), uniform evenly, sequential by the counter", () => {
    const zipf = rt.obPicker(5000, { zipf: 1.25 }, seededRandom(3), () => 0);
    const counts = histogram(() => zipf() + 1, 5000, 100_000);
    expect(counts[1]! / 100_000).toBeCloseTo(zipfProbabilities(5000, 1.25)[0]!, 2);

    const uniform = rt.obPicker(4, "uniform", seededRandom(4), () => 0);
    const u = histogram(uniform, 4, 40_000).slice(0, 4);
    for (const c of u) expect(Math.abs(c - 10_000)).toBeLessThan(400);

    let n = 0;
    const seq = rt.obPicker(3, "sequential", seededRandom(5), () => n++);
    expect(Array.from({ length: 7 }, seq)).toEqual([0, 1, 2, 0, 1, 2, 0]);
  });

  it("chooses requests by weight", () => {
    const pick = rt.obWeighted([3, 1, 0.5, 0.5], seededRandom(6));
    const counts = histogram(pick, 4, 100_000);
    expect(counts.slice(0, 4).map((c) => Math.round((c / 100_000) * 100))).toEqual([60, 20, 10, 10]);
  });

  it("generates pool rows from dimensions, last dimension fastest", () => {
    expect(rt.obDimensionRow(["user", "device"], [100, 5], 0)).toEqual({ index: 0, user: 1, device: 1 });
    expect(rt.obDimensionRow(["user", "device"], [100, 5], 7)).toEqual({ index: 7, user: 2, device: 3 });
    expect(rt.obDimensionRow(["user", "device"], [100, 5], 499)).toEqual({ index: 499, user: 100, device: 5 });
  });

  it("generated scripts embed exactly this runtime", () => {
    const script = compileK6Script(
      workloadSpec.parse({ kind: "constant-vus", vus: 1, duration: "1s", requests: [{ name: "a", path: "/" }] }),
    );
    expect(script).toContain(K6_RUNTIME_SOURCE);
  });
});
