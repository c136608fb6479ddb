import { describe, expect, it } from "vitest";
import { bucketIndex } from "../src/histograms/histogram";
import type { ResultCell } from "../src/runs/latency-summary";
import { alignToLoadStart, summarizeAligned } from "../src/compare/comparison-samples";
import { breakEvenPairs } from "../src/cost/group-cost";
import { priceRun, type RunCost } from "../src/cost/run-cost";
import { alignRepetitions, averagedSeries, maxThroughputAcrossRuns } from "../src/statistics/merged-repetitions";

/** A run at `rps` 2xx responses a second of `ms` each, for `seconds`, starting at `startS` (unix seconds). */
function steadyRun(startS: number, seconds: number, rps: number, ms = 10): { cells: ResultCell[]; start: Date } {
  const cells = Array.from({ length: seconds }, (_, s) => ({
    ts: new Date((startS + s) * 1000),
    name: "echo",
    class: "2xx",
    failures: 0,
    count: rps,
    sum: rps * ms,
    min: ms,
    max: ms,
    buckets: [[bucketIndex(ms), rps]] as Array<[number, number]>,
  }));
  return { cells, start: new Date(startS * 1000 + 300) };
}

describe("merged repetitions", () => {
  const runs = [steadyRun(1_700_000_000, 60, 100), steadyRun(1_700_000_500, 60, 100), steadyRun(1_700_001_000, 60, 100)];

  it("three identical runs at 100 req/s merge to a maximum throughput of 100, not 300", () => {
    const m = maxThroughputAcrossRuns(runs);
    expect(m.perRun.map((r) => r!.rps)).toEqual([100, 100, 100]);
    expect(m.stats.mean).toBe(100);
    expect(m.stats.n).toBe(3);
    expect(m.stats.ci95!.low).toBeCloseTo(100, 10);
    expect(m.stats.ci95!.high).toBeCloseTo(100, 10);
  });

  it("averages requests per bucket across the runs and adds the latency histograms", () => {
    const series = averagedSeries(runs, 10);
    expect(series).toHaveLength(6);
    for (const b of series) {
      expect(b.requests).toBe(1000); // 100 req/s x 10 s, per run
      expect(b.p95Ms).toBeCloseTo(10, 0);
    }
    // The aligned cells keep every request for the histograms: 3 x 60 x 100.
    expect(alignRepetitions(runs).reduce((a, c) => a + c.count, 0)).toBe(18_000);
  });

  it("averages the seconds after a run's load window over the runs with answers there, never sums them", () => {
    // Two 10 s windows; each run has answers in one more second (requests still in flight when its load stopped).
    const a = { ...steadyRun(1_700_000_000, 11, 100), loadSeconds: 10 };
    const b = { ...steadyRun(1_700_000_500, 11, 60), loadSeconds: 10 };
    const series = averagedSeries([a, b], 1);
    expect(series).toHaveLength(11);
    expect(series.map((p) => p.requests)).toEqual(Array(11).fill(80));
    // One run has answers past its window, the other stopped on time: the second is that run's.
    const c = { ...steadyRun(1_700_001_000, 10, 60), loadSeconds: 10 };
    expect(averagedSeries([a, c], 1).at(-1)!.requests).toBe(100);
  });

  it("summarises different runs with a t interval on the log scale (a rate is positive)", () => {
    const m = maxThroughputAcrossRuns([steadyRun(0, 30, 90), steadyRun(100, 30, 100), steadyRun(200, 30, 110)]);
    expect(m.stats.mean).toBe(100);
    expect(m.stats.sd).toBe(10);
    // t(0.975, 2) = 4.3027 on the logs of 90, 100, 110, back-transformed.
    const logs = [90, 100, 110].map(Math.log);
    const lm = (logs[0]! + logs[1]! + logs[2]!) / 3;
    const lsd = Math.sqrt(logs.reduce((a, x) => a + (x - lm) ** 2, 0) / 2);
    const half = (4.302652729911275 * lsd) / Math.sqrt(3);
    expect(m.stats.interval).toMatchObject({ kind: "t-log", level: 0.95 });
    expect(m.stats.ci95!.low).toBeCloseTo(Math.exp(lm - half), 8);
    expect(m.stats.ci95!.high).toBeCloseTo(Math.exp(lm + half), 8);
  });
});

describe("break-even from merged repetitions", () => {
  // Priced as the IoT study's GKE node pool and Cloud Run, from the built-in catalogs.
  const priced = (catalog: string): RunCost => {
    const r = priceRun(
      { catalog },
      { durationSeconds: 60, requests: 6000, failures: 0, meanLatencySeconds: 0.01, replicas: [{ offsetSeconds: 0, replicas: 1 }] },
    );
    if (!r.ok) throw new Error(r.error);
    return r.cost;
  };
  const groupOf = (label: string, runs: Array<{ cells: ResultCell[]; start: Date }>, catalog: string) => {
    const aligned = runs.map((r) => alignToLoadStart(r.cells, r.start));
    const { merged } = summarizeAligned(aligned, runs.length * 60);
    // Each run stated saturated at the merged maximum: what is tested here is that repetitions do not add up.
    const capacity = {
      known: true as const,
      rps: merged!.maxThroughput!.rps,
      saturatedRuns: runs.length,
      runs: runs.length,
      why: "stated",
    };
    return { label, cost: priced(catalog), rps: merged!.rps, capacity, replicas: [1, 1, 1] };
  };

  it("three identical runs at 100 req/s give the break-even capacity of a single run (not three times it)", () => {
    const three = [steadyRun(1_700_000_000, 60, 100), steadyRun(1_700_000_500, 60, 100), steadyRun(1_700_001_000, 60, 100)];
    const fn = groupOf("fn", [steadyRun(1_700_002_000, 60, 100)], "iot-study-cloud-run-europe-west3");
    const merged = breakEvenPairs([groupOf("svc x3", three, "iot-study-gke-europe-west3"), fn]);
    const single = breakEvenPairs([groupOf("svc x1", [three[0]!], "iot-study-gke-europe-west3"), fn]);
    expect(merged).toHaveLength(1);
    expect(Math.abs(merged[0]!.capacityPerNodeRps! - 100) / 100).toBeLessThanOrEqual(0.01);
    expect(merged[0]!.capacityPerNodeRps).toBe(single[0]!.capacityPerNodeRps);
    expect(merged[0]!.result.breakEvenRps).toBe(single[0]!.result.breakEvenRps);
  });
});
