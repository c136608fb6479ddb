import { describe, expect, it } from "vitest";
import { priceRun, type RunCost } from "../src/cost/run-cost";
import type { RunSummary } from "../src/runs/run-summary";
import { STUDY_TABLES, studyTableCells, studyTableRows, type StudyTableRun } from "../src/statistics/study-tables";

/** A real priced cost (the IoT study's Cloud Run catalog); the tests set the figure they read. */
function priced(requests: number): RunCost {
  const r = priceRun(
    { catalog: "iot-study-cloud-run-europe-west3" },
    { durationSeconds: 10, requests, failures: 0, meanLatencySeconds: 0.01, replicas: [] },
  );
  if (!r.ok) throw new Error(r.error);
  return r.cost;
}

/** A run's summary with the figures the tables read; the rest neutral. */
function run(
  id: string,
  f: { requests: number; ok: number; p95: number; costPerK?: number; rps?: number; cpu?: number | null; max?: number },
): StudyTableRun {
  const summary: RunSummary = {
    requests: f.requests,
    failures: f.requests - f.ok,
    goodput: (100 * f.ok) / f.requests,
    successRatio: (100 * f.ok) / f.requests,
    expectedResponseRatio: (100 * f.ok) / f.requests,
    rps: f.rps ?? f.requests / 10,
    durationSeconds: 10,
    latencyMs: { min: 1, avg: 5, p50: 4, p90: 8, p95: f.p95, p99: 12, max: 20 },
    byClass: { "2xx": f.ok, "5xx": f.requests - f.ok },
    ...(f.costPerK === undefined ? {} : { cost: { ...priced(f.requests), perThousandSuccessfulRequests: f.costPerK } }),
  };
  return { runId: id, summary, maxThroughputRps: f.max ?? null, cpuPercent: f.cpu ?? null };
}

// Student's t(0.975, 2) = 4.3027: 3 repetitions.
const T2 = 4.302652729911275;

describe("the studies' tables", () => {
  const cells = studyTableCells([
    {
      target: "gke",
      workload: "linear",
      runs: [
        run("a", { requests: 100, ok: 100, p95: 10, costPerK: 0.3, cpu: 50, rps: 50, max: 60 }),
        run("b", { requests: 110, ok: 99, p95: 12, costPerK: 0.3, cpu: 50, rps: 55, max: 70 }),
        run("c", { requests: 120, ok: 120, p95: 14, costPerK: 0.3, cpu: 50, rps: 60, max: 80 }),
      ],
    },
    { target: "gcr", workload: "linear", runs: [run("d", { requests: 200, ok: 150, p95: 30, costPerK: 0.05 })] },
  ]);

  it("gives each figure as the mean over the repetitions with its 95% interval in its domain (worked by hand)", () => {
    const gke = cells[0]!;
    expect(gke.n).toBe(3);
    // Totals 100, 110, 120: mean 110; a count is positive, so its interval is the logs' t-interval, exp'd.
    expect(gke.stats.total.mean).toBe(110);
    const logs = [100, 110, 120].map(Math.log);
    const lm = (logs[0]! + logs[1]! + logs[2]!) / 3;
    const lsd = Math.sqrt(logs.reduce((a, x) => a + (x - lm) ** 2, 0) / 2);
    expect(gke.stats.total.interval).toMatchObject({ kind: "t-log", level: 0.95 });
    expect(gke.stats.total.ci95!.low).toBeCloseTo(Math.exp(lm - (T2 * lsd) / Math.sqrt(3)), 8);
    expect(gke.stats.total.ci95!.high).toBeCloseTo(Math.exp(lm + (T2 * lsd) / Math.sqrt(3)), 8);
    // Failed 0, 11, 0: a 0 has no log, so the plain t-interval cut at 0.
    expect(gke.stats.failed.interval!.kind).toBe("t-clamped");
    expect(gke.stats.failed.interval!.low).toBe(0);
    expect(gke.stats.failed.mean).toBeCloseTo(11 / 3, 12);
    // Goodput 100%, 90%, 100%: mean 96.67%.
    expect(gke.stats.goodput.mean).toBeCloseTo(290 / 3, 9);
    expect(gke.stats.p95.mean).toBe(12);
    expect(gke.stats.costPerThousand.mean).toBeCloseTo(0.3, 12);
    expect(gke.costUnit).toBe("EUR-cent");
    // Weighted qps: 50/50, 55/50, 60/50 -> 1.1; stable throughput is 80% of max: 0.8 x 70 = 56.
    expect(gke.stats.weightedQps.mean).toBeCloseTo(1.1, 12);
    expect(gke.stats.stableThroughput.mean).toBeCloseTo(56, 12);
    // One run: a mean, no interval; no CPU series: no weighted qps.
    const gcr = cells[1]!;
    expect(gcr.stats.successRatio).toMatchObject({ n: 1, mean: 75, ci95: null, interval: { kind: "value", low: 75, high: 75 } });
    expect(gcr.stats.weightedQps.n).toBe(0);
  });

  it("lays each table out as its study did", () => {
    const counts = studyTableRows("request-counts", cells);
    expect(counts.columns.slice(0, 7)).toEqual(["target", "workload", "n", "failed", "failed_low", "failed_high", "failed_interval"]);
    expect(counts.rows[0]!.slice(0, 3)).toEqual(["gke", "linear", 3]);
    // Table 5.45: a row per workload, the deployments side by side.
    const cost = studyTableRows("cost", cells);
    expect(cost.columns).toEqual([
      "workload",
      "unit",
      "gke:costPerThousand",
      "gke:costPerThousand_low",
      "gke:costPerThousand_high",
      "gke:costPerThousand_interval",
      "gcr:costPerThousand",
      "gcr:costPerThousand_low",
      "gcr:costPerThousand_high",
      "gcr:costPerThousand_interval",
    ]);
    expect(cost.rows).toHaveLength(1);
    expect(cost.rows[0]![0]).toBe("linear");
    expect(cost.rows[0]![6]).toBe(0.05);
    // One run: its value is both ends, and the file says it is a value, not an interval.
    expect(cost.rows[0]!.slice(6)).toEqual([0.05, 0.05, 0.05, "value"]);
    // Table 4.3: a row per deployment, the workloads side by side, k6's ratio beside the 2xx share.
    const ratio = studyTableRows("success-ratio", cells);
    expect(ratio.columns.filter((c) => !/_(low|high|interval)$/.test(c))).toEqual([
      "target",
      "linear:successRatio",
      "linear:expectedResponseRatio",
    ]);
    expect(ratio.rows.map((r) => r[0])).toEqual(["gke", "gcr"]);
    expect(Object.keys(STUDY_TABLES)).toEqual(["request-counts", "request-durations", "cost", "success-ratio", "throughput", "scaling"]);
  });
});
