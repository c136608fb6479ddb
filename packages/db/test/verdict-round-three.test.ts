// Issue 34's findings 2, 3, 4, 5 and 9 on k6 files written here and imported by the real `opsbench import k6`: each
// run's latencies are constant (so its p95 is exact) or its failures counted, and every right answer is computed
// here with closed forms: two runs a side with equal spreads give Welch's df = 2, whose t quantiles and tail are
// elementary (P(T > t) = 1/2 - t / (2 sqrt(2 + t^2)); the p-quantile is (2p - 1) sqrt(2 / (4p(1 - p)))).
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStack } from "../../../tests/helpers";
import { importK6Requests, type WrittenRequest } from "../../../tests/k6-result-files";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let dir: string;
const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);

const t2Quantile = (p: number) => (2 * p - 1) * Math.sqrt(2 / (4 * p * (1 - p)));
const t2Upper = (t: number) => 0.5 - t / (2 * Math.sqrt(2 + t * t));

/** 60 s at total / 60 req/s (5 by default), every success taking `ms`; `failures` of them instant 503s (spread evenly). */
function run(ms: number, failures = 0, total = 300): WrittenRequest[] {
  return Array.from({ length: total }, (_, i) => {
    const fail = failures > 0 && i % Math.floor(total / failures) === 0 && i / Math.floor(total / failures) < failures;
    return { atMs: Math.floor((i * 60_000) / total), ms: fail ? 1 : ms, ok: !fail };
  });
}

const ids: Record<string, string> = {};
const group = (label: string, ...names: string[]) => ({ label, runIds: names.map((n) => ids[n]!) });
const mean = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-round3-"));
  const a = 0.64; // +-a around a mean: sample variance 2a^2, so se = sqrt(2) a for two runs a side
  const files: Record<string, WrittenRequest[]> = {
    // Finding 2 and 3: p95 100 and 104 against 103 and 107 (se = 2 sqrt(2), df 2).
    a1: run(100),
    a2: run(104),
    b1: run(103),
    b2: run(107),
    // Finding 9, unequal spreads: 100 and 100.5 against 95 and 115.
    u1: run(100),
    u2: run(100.5),
    v1: run(95),
    v2: run(115),
    // Finding 9, equivalence inside Holm: 101 +- a against 101.5 +- a (equivalent alone, p ~ 0.038), and a third
    // group 104 +- 2 (inconclusive) so the family has two verdicts.
    e1: run(101 - a),
    e2: run(101 + a),
    f1: run(101.5 - a),
    f2: run(101.5 + a),
    g1: run(102),
    g2: run(106),
    // Finding 4: 0.1% and 0.13% failures of 3,000 requests against 1% and 1.1%.
    p1: run(50, 3, 3000),
    p2: run(50, 4, 3000),
    q1: run(50, 30, 3000),
    q2: run(50, 33, 3000),
    // Finding 5: the same service; the candidate answers 30% of its requests with instant 503s.
    s1: run(50),
    s2: run(50),
    s3: run(50),
    x1: run(50, 90),
    x2: run(50, 90),
    x3: run(50, 90),
  };
  for (const [name, reqs] of Object.entries(files)) ids[name] = await importK6Requests(dir, `round3-${name}`, reqs, { t0: T0 });
}, 300_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await stack?.close();
});

describe("verdicts, round three, on imported k6 files", () => {
  it("finding 2: 'could detect' and 'runs needed' are the rule's (the margin plus (t + t) se), not a test against zero", async () => {
    const view = await stack.scope.compare([group("A", "a1", "a2"), group("B", "b1", "b2")]);
    const p95 = view.verdicts.find((v) => v.metric === "p95")!;
    const se = Math.sqrt(8 / 2 + 8 / 2); // sample variance 8 a side, two runs
    expect(p95.df).toBeCloseTo(2, 9);
    expect(p95.standardError).toBeCloseTo(se, 6);
    const baseline = 102;
    const band = 0.05 * baseline;
    // 80% power for "better": the margin plus (t.975 + t.80) se, relative to the baseline.
    expect(p95.detectable).toBeCloseTo((band + (t2Quantile(0.975) + t2Quantile(0.8)) * se) / baseline, 6);
    // The old formula (against zero) would have said (t.975 + t.80) se alone: 5 points lower.
    expect(p95.detectable! - ((t2Quantile(0.975) + t2Quantile(0.8)) * se) / baseline).toBeCloseTo(0.05, 6);
    // Power for a true 10% difference: P(T2 > t.975 - (10.2 - 5.1) / se).
    expect(p95.power).toBeCloseTo(t2Upper(t2Quantile(0.975) - (0.1 * baseline - band) / se), 6);
    // Runs a side for 80% on 10% past a 5% margin, per-run variance 8: at least the normal approximation
    // 2 x 8 x (1.96 + 0.8416)^2 / 5.1^2 = 4.83, so 5 or more; the t quantiles (df n - 1) add a few.
    expect(p95.runsNeeded).toBeGreaterThanOrEqual(5);
    expect(p95.runsNeeded).toBeLessThanOrEqual(9);
  });

  it("finding 3: the primary metric is the family (Holm's step over its pairs); the rest are descriptive, never significant", async () => {
    const view = await stack.scope.compare([group("A", "a1", "a2"), group("B", "b1", "b2"), group("G", "g1", "g2")]);
    const primary = view.verdicts.filter((v) => v.role === "primary");
    expect(primary.map((v) => v.metric)).toEqual(["p95", "p95"]);
    expect(primary.every((v) => v.familySize === 2)).toBe(true);
    expect(view.verdicts.filter((v) => v.role === "descriptive").every((v) => !v.significant && v.metric !== "p95")).toBe(true);
    // Holm's first step over 2: the critical t is t(1 - 0.05 / 4, 2), so the rule finds less.
    const b = primary.find((v) => v.candidate === "B")!;
    const se = 2 * Math.SQRT2;
    expect(b.detectable).toBeCloseTo((5.1 + (t2Quantile(1 - 0.0125) + t2Quantile(0.8)) * se) / 102, 6);
    // Another primary metric is the user's: p99 (the same constant latencies) takes the family.
    const picked = await stack.scope.compare([group("A", "a1", "a2"), group("B", "b1", "b2")], { primaryMetric: "p99" });
    expect(picked.verdicts.filter((v) => v.role === "primary").map((v) => v.metric)).toEqual(["p99"]);
    expect(picked.verdicts.find((v) => v.metric === "p95")!.role).toBe("descriptive");
  });

  it("finding 4: the failure share is judged on its odds: 0.1% -> 1% failures is worse, not within a 1-point margin", async () => {
    const view = await stack.scope.compare([group("A", "p1", "p2"), group("B", "q1", "q2")]);
    const f = view.verdicts.find((v) => v.metric === "failure share")!;
    expect(f.scale).toBe("log-odds");
    const logit = (failures: number) => Math.log((failures + 0.5) / (3000 - failures + 0.5));
    const [la, lb] = [[3, 4].map(logit), [30, 33].map(logit)];
    // (The stored goodput has two decimals, so the runs' shares are known to 0.005 points.)
    expect(f.estimate).toBeCloseTo(Math.exp(mean(lb) - mean(la)), 1);
    // Welch's interval on the log-odds, two runs a side: var of a mean is the sample variance / 2.
    const v = (xs: number[]) => (xs[0]! - xs[1]!) ** 2 / 2 / 2;
    const se = Math.sqrt(v(la) + v(lb));
    const df = (v(la) + v(lb)) ** 2 / (v(la) ** 2 + v(lb) ** 2); // Welch-Satterthwaite, n - 1 = 1 a side
    expect(f.df).toBeCloseTo(df, 1);
    expect(f.standardError).toBeCloseTo(se, 2);
    // The baseline's share with half a failure added per run, (f + 0.5) / (N + 1).
    expect(f.baselineMean).toBeCloseTo((100 * (3.5 / 3001 + 4.5 / 3001)) / 2, 2);
    // 0.9 points apart: inside the old 1-point margin ("equivalent"); ten times the odds, beyond a 50% margin.
    expect((100 * 31.5) / 3000 - (100 * 3.5) / 3000).toBeLessThan(1);
    expect(f.low!).toBeGreaterThan(1.5);
    expect(f.outcome).toBe("baseline-better");
    // The margin is the user's SLO margin: ten times the odds (1000%) is not "better".
    const loose = await stack.scope.compare([group("A", "p1", "p2"), group("B", "q1", "q2")], { failureMargin: 10 });
    expect(loose.verdicts.find((x) => x.metric === "failure share")!.outcome).not.toBe("baseline-better");
  });

  it("finding 5: instant 503s do not win throughput (successful req/s), and all-responses latency is descriptive", async () => {
    const view = await stack.scope.compare([group("S", "s1", "s2", "s3"), group("X", "x1", "x2", "x3")]);
    const rps = view.verdicts.find((v) => v.metric === "req/s")!;
    // 300 requests over the load window a run; the candidate's successful ones are 210 of them.
    const seconds = view.groups[0]!.runs[0]!.summary!.durationSeconds;
    expect(rps.baselineMean).toBeCloseTo(300 / seconds, 1);
    expect(rps.estimate).toBeCloseTo(-90 / seconds, 1);
    expect(rps.outcome).toBe("baseline-better");
    // Every response's p95 is lower on X (its 503s take 1 ms): shown, never a verdict of the family.
    const all = view.verdicts.find((v) => v.metric === "p95 (all responses)")!;
    expect(all.role).toBe("descriptive");
    expect(all.significant).toBe(false);
    expect(view.verdicts.find((v) => v.metric === "p95")!.estimate).toBeCloseTo(0, 6);
  });

  it("finding 9: Welch's df for unequal spreads, and equivalence claims inside Holm's correction", async () => {
    const view = await stack.scope.compare([group("U", "u1", "u2"), group("V", "v1", "v2")]);
    const p95 = view.verdicts.find((v) => v.metric === "p95")!;
    const [va, vb] = [0.5 ** 2 / 2 / 2, 20 ** 2 / 2 / 2];
    const welchDf = (va + vb) ** 2 / (va ** 2 + vb ** 2);
    expect(p95.df).toBeCloseTo(welchDf, 6);
    // Student's df 2 would give a half-width of 4.30 se; Welch's (about 1) a wider one.
    expect((p95.high! - p95.estimate!) / p95.standardError!).toBeGreaterThan(t2Quantile(0.975) + 1);

    // Equivalence: F vs E alone is equivalent (p ~ 0.038 < 0.05); in a family of two whose other p is larger, Holm
    // doubles it (0.075) and the claim does not stand.
    const a = 0.64;
    const se = Math.SQRT2 * a;
    const band = 0.05 * 101;
    const pEquivalent = 2 * t2Upper((band - 0.5) / se);
    expect(pEquivalent).toBeGreaterThan(0.025);
    expect(pEquivalent).toBeLessThan(0.05);
    const alone = await stack.scope.compare([group("E", "e1", "e2"), group("F", "f1", "f2")]);
    const aloneP95 = alone.verdicts.find((v) => v.metric === "p95")!;
    expect(aloneP95.outcome).toBe("equivalent");
    expect(aloneP95.pValue).toBeCloseTo(pEquivalent, 3);
    const family = await stack.scope.compare([group("E", "e1", "e2"), group("F", "f1", "f2"), group("G", "g1", "g2")]);
    const f = family.verdicts.find((v) => v.metric === "p95" && v.candidate === "F")!;
    const g = family.verdicts.find((v) => v.metric === "p95" && v.candidate === "G")!;
    expect(g.pValue!).toBeGreaterThan(f.pValue!);
    expect(f.adjustedPValue).toBeCloseTo(2 * f.pValue!, 9);
    expect(f.outcome).toBe("inconclusive");
    expect(f.text).toMatch(/within the margin alone, but not after Holm's correction/);
  });
});
