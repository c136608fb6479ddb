// What a run's numbers are taken from (issue 22, findings 4 and 5, warm-up, flagged runs): each right answer is
// computed here from raw samples (sorted arrays, k6's percentile rule, HdrHistogram's correction on raw values),
// never by the code under test. The samples reach the code as a k6 JSON file would (the k6 import's aggregator).
import { describe, expect, it } from "vitest";
import {
  afterWarmup,
  bucketize,
  comparisonVerdicts,
  coordinatedOmission,
  k6ImportAggregator,
  measuredSeconds,
  publicRunSummarySchema,
  runSummarySchema,
  summarize,
  verdictExcludingFlags,
  workloadSpec,
  type ResultCell,
} from "../src";

const T0 = Date.UTC(2026, 10, 25, 3, 0, 0);

/** k6's percentile: sorted values, rank p*(n-1), linear interpolation. */
function exact(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  const rank = p * (s.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return s[lo]! + (s[hi]! - s[lo]!) * (rank - lo);
}

interface Req {
  atMs: number;
  ms: number;
  status: number;
  ok: boolean;
  name?: string;
}

/** A k6 `--out json` file's lines for these requests. */
const k6Json = (reqs: readonly Req[]) =>
  reqs.map((r) =>
    JSON.stringify({
      type: "Point",
      metric: "http_req_duration",
      data: {
        time: new Date(T0 + r.atMs).toISOString(),
        value: r.ms,
        tags: { name: r.name ?? "get", status: String(r.status), expected_response: String(r.ok), method: "GET" },
      },
    }),
  );

function imported(reqs: readonly Req[]): ResultCell[] {
  const agg = k6ImportAggregator("json");
  for (const [i, line] of k6Json(reqs).entries()) agg.line(line, i + 1);
  return agg.finish().cells;
}

const within = (got: number, want: number, rel = 0.01) => expect(Math.abs(got - want) / want).toBeLessThanOrEqual(rel);

// 60 s at 10 req/s: 70% slow successes (100-169 ms), 30% instant 503s (1-2 ms), and one expected 404 per second
// (a script that counts 404 as success) beside one unexpected 400 in the same status class.
const reqs: Req[] = [];
for (let s = 0; s < 60; s++)
  for (let k = 0; k < 10; k++) {
    const i = s * 10 + k;
    const fail = k % 10 >= 7;
    reqs.push({ atMs: s * 1000 + k * 97, ms: fail ? 1 + (i % 2) : 100 + (i % 70), status: fail ? 503 : 200, ok: !fail });
  }
for (let s = 0; s < 60; s++) {
  reqs.push({ atMs: s * 1000 + 990, ms: 300 + s, status: 404, ok: true });
  reqs.push({ atMs: s * 1000 + 995, ms: 0.5, status: 400, ok: false });
}

describe("latency of successful responses first (finding 5)", () => {
  const cells = imported(reqs);
  const summary = summarize(cells, 60);
  const okMs = reqs.filter((r) => r.ok).map((r) => r.ms);
  const allMs = reqs.map((r) => r.ms);

  it("keeps successful and failed responses of one status class in separate cells", () => {
    const fourXX = cells.filter((c) => c.class === "4xx" && c.ts.getTime() === T0);
    expect(fourXX.map((c) => [c.count, c.failures, c.min, c.max])).toEqual([
      [1, 0, 300, 300],
      [1, 1, 0.5, 0.5],
    ]);
  });

  it("gives successful responses' percentiles beside every response's, each within 1% of exact", () => {
    const ok = summary.successLatencyMs!;
    for (const [p, key] of [
      [0.5, "p50"],
      [0.9, "p90"],
      [0.95, "p95"],
      [0.99, "p99"],
    ] as const) {
      within(ok[key], exact(okMs, p));
      within(summary.latencyMs[key], exact(allMs, p));
    }
    expect(ok.min).toBe(100);
    expect(ok.max).toBe(359);
    // The fast failures pull every response's median down; the successful responses' is where the service is.
    expect(summary.latencyMs.p50).toBeLessThan(0.9 * ok.p50);
  });

  it("judges latency on successful responses first, then on all responses", () => {
    // Three runs a side; the candidate answers 30% of its requests with instant 503s and is otherwise identical.
    const fast503 = summary;
    const allOk = summarize(imported(reqs.map((r) => (r.ok ? r : { ...r, ms: 100 + (r.atMs % 70), status: 200, ok: true }))), 60);
    const verdicts = comparisonVerdicts([
      { label: "clean", summaries: [allOk, allOk, allOk], windows: [] },
      { label: "fast-503", summaries: [fast503, fast503, fast503], windows: [] },
    ]);
    const p95 = verdicts.find((v) => v.metric === "p95")!;
    expect(p95.baselineMean).toBe(allOk.successLatencyMs!.p95);
    expect(p95.estimate).toBeCloseTo(fast503.successLatencyMs!.p95 - allOk.successLatencyMs!.p95, 6);
    const p95All = verdicts.find((v) => v.metric === "p95 (all responses)")!;
    expect(p95All.baselineMean).toBe(allOk.latencyMs.p95);
    expect(verdicts.map((v) => v.metric).indexOf("p95")).toBeLessThan(verdicts.map((v) => v.metric).indexOf("p95 (all responses)"));
  });

  it("gives per-second percentiles (charts, a single run's verdict windows) of successful responses", () => {
    const buckets = bucketize(cells, new Date(T0), 1);
    expect(buckets).toHaveLength(60);
    for (const b of [buckets[0]!, buckets[31]!]) {
      const second = reqs.filter((r) => Math.floor(r.atMs / 1000) === b.offsetSeconds);
      expect(b.requests).toBe(second.length);
      within(
        b.p50Ms!,
        exact(
          second.filter((r) => r.ok).map((r) => r.ms),
          0.5,
        ),
      );
    }
  });
});

describe("the rate's source", () => {
  it("is kept in a run's summary but not shown through a public share (it names another run)", () => {
    const runId = "3b9f6a52-8c1d-4f7e-9a0b-2c4d6e8f0a1b";
    const rateSource = { percentOfRunMax: 80, runId, maxThroughputRps: 100, requestsPerIteration: 2, iterationsPerSecond: 40 };
    const summary = { ...summarize(imported(reqs.slice(0, 20)), 2), rateSource };
    expect(runSummarySchema.parse(summary).rateSource).toEqual(rateSource);
    expect(JSON.stringify(publicRunSummarySchema.parse(summary))).not.toContain(runId);
  });
});

describe("warm-up exclusion", () => {
  // The first 10 s are slow (a cold start); the rest is the steady state.
  const warm: Req[] = [];
  for (let s = 0; s < 40; s++)
    for (let k = 0; k < 5; k++)
      warm.push({ atMs: s * 1000 + k * 150, ms: s < 10 ? 900 + k : 20 + ((s * 5 + k) % 10), status: 200, ok: true });
  const cells = imported(warm);
  const loadStart = new Date(T0 + 300); // the load started 300 ms into second 0

  it("leaves out the seconds before load start + warmupSeconds, from summaries alike", () => {
    const kept = afterWarmup(cells, loadStart, 10);
    const steady = warm.filter((r) => r.atMs >= 10_000).map((r) => r.ms);
    const s = summarize(kept, measuredSeconds({ startMs: T0 + 300, endMs: T0 + 40_000 }, loadStart, 10));
    expect(s.requests).toBe(steady.length);
    within(s.latencyMs.p99, exact(steady, 0.99));
    expect(s.latencyMs.max).toBe(Math.max(...steady));
    expect(s.durationSeconds).toBe(30);
    expect(s.rps).toBeCloseTo(steady.length / 30, 6);
    // Without the warm-up the cold start dominates the tail.
    expect(summarize(cells, 40).latencyMs.p99).toBeGreaterThan(800);
    expect(afterWarmup(cells, loadStart, 0)).toHaveLength(cells.length);
  });
});

describe("flagged runs are left out of verdicts", () => {
  it("names the flags that break a measurement, and not the caveats", () => {
    const flags = [
      "partial",
      "dropped-iterations",
      "load-generator-cpu",
      "over-limits",
      "lost-generator",
      "closed-loop",
      "too-few-repetitions",
    ];
    expect(verdictExcludingFlags(flags.map((code) => ({ code, message: code }))).map((f) => f.code)).toEqual([
      "partial",
      "dropped-iterations",
      "load-generator-cpu",
      "over-limits",
      "lost-generator",
    ]);
  });
});

describe("closed loops: coordinated omission (finding 5)", () => {
  const closed = (thinkTime?: string | { min: string; max: string }) =>
    workloadSpec.parse({
      kind: "constant-vus",
      vus: 4,
      duration: "60s",
      requests: [{ name: "get", method: "GET", path: "/" }],
      ...(thinkTime ? { thinkTime } : {}),
    });

  // 1,000 answers of 10 ms and one stall of 2,000 ms.
  const stall: Req[] = [];
  for (let i = 0; i < 1000; i++) stall.push({ atMs: i * 50, ms: 10, status: 200, ok: true });
  stall.push({ atMs: 50_000, ms: 2000, status: 200, ok: true });
  const cells = imported(stall);

  it("corrects with HdrHistogram's expected-interval rule where the pacing is constant", () => {
    const co = coordinatedOmission(closed("90ms"), cells, 1)!;
    // The expected interval per VU: the median answer plus the pause per request (10 + 90 ms).
    const interval = 10 + 90;
    expect(co.expectedIntervalMs!).toBeCloseTo(interval, 0);
    // HdrHistogram's recordValueWithExpectedInterval on the raw values: v, then v - I, v - 2I, ... while >= I.
    const corrected: number[] = [];
    for (const r of stall) {
      corrected.push(r.ms);
      for (let missing = r.ms - interval; missing >= interval; missing -= interval) corrected.push(missing);
    }
    expect(corrected.length).toBe(1001 + 19);
    for (const [p, key] of [
      [0.5, "p50"],
      [0.99, "p99"],
    ] as const)
      within(co.correctedLatencyMs![key], exact(corrected, p), 0.02);
    // The uncorrected p99 is the 10 ms answers; corrected, the stall shows.
    expect(summarize(cells, 60).latencyMs.p99).toBeLessThan(11);
    expect(co.correctedLatencyMs!.p99).toBeGreaterThan(100);
  });

  it("flags without a correction when the pacing is random or absent, and not at all for an open model", () => {
    expect(coordinatedOmission(closed({ min: "10ms", max: "200ms" }), cells, 1)).toEqual({
      closedLoop: true,
      expectedIntervalMs: null,
      correctedLatencyMs: null,
    });
    expect(coordinatedOmission(closed(), cells, 1)?.correctedLatencyMs).toBeNull();
    const open = workloadSpec.parse({
      kind: "constant-arrival-rate",
      rate: 10,
      duration: "60s",
      preAllocatedVUs: 5,
      requests: [{ name: "get", method: "GET", path: "/" }],
    });
    expect(coordinatedOmission(open, cells, 1)).toBeNull();
  });
});
