import { describe, expect, it } from "vitest";
import {
  breakEvenPairs,
  groupCapacity,
  cellFlags,
  cellIndexOf,
  cellsFromRuns,
  cellStats,
  comparisonSamples,
  comparisonVerdicts,
  METRIC_CATALOG,
  emptyHistogram,
  flagsOfGroup,
  flagsOfRun,
  groupCost,
  isRunInProgress,
  isStudySettled,
  LOAD_GENERATOR_CPU_LIMIT,
  MIN_REPETITIONS,
  recordValue,
  toPart,
  runStatusCounts,
  studyRunResult,
  summarize,
  type ResultCell,
  type RunCost,
  type RunSummary,
  type TimeBucket,
} from "../src/index";

const summaryOf = (values: number[]): RunSummary => {
  const h = emptyHistogram();
  for (const v of values) recordValue(h, v);
  const cell: ResultCell = { ...toPart(h), ts: new Date(0), name: "GET /", class: "2xx", failures: 0 };
  return summarize([cell], 1);
};
const load = (over: { generatorCpuPercent?: number; droppedIterations?: number }) => ({
  load: { maxVUs: 1, iterations: 1, droppedIterations: 0, bytesSent: 0, bytesReceived: 0, ...over },
});

describe("validity flags of a run and a group", () => {
  it("adds what the summary says when the run does not have it, once per code", () => {
    const summary = load({ generatorCpuPercent: LOAD_GENERATOR_CPU_LIMIT + 5, droppedIterations: 2 });
    expect(flagsOfRun({ flags: [], summary }).map((f) => f.code)).toEqual(["load-generator-cpu", "dropped-iterations"]);
    const stored = [{ code: "load-generator-cpu", message: "stored" }];
    const flags = flagsOfRun({ flags: stored, summary });
    expect(flags.filter((f) => f.code === "load-generator-cpu")).toEqual(stored);
    expect(flagsOfRun({ flags: [], summary: load({ generatorCpuPercent: LOAD_GENERATOR_CPU_LIMIT }) })).toEqual([]);
  });

  it("words too few repetitions the same for a run, a study cell and a compared group", () => {
    const runs = [
      { status: "SUCCEEDED", summary: summaryOf([1]) },
      { status: "FAILED", summary: null },
    ];
    const [group] = flagsOfGroup({ runs });
    const [cell] = cellFlags(1, true);
    expect(group).toEqual(cell);
    expect(group!.message).toMatch(/^1 repetition of this target x workload \(fewer than 3\)/);
    expect(cellFlags(1, false)).toEqual([]);
    expect(cellFlags(MIN_REPETITIONS, true)).toEqual([]);
  });
});

describe("run and study status", () => {
  it("counts final statuses and tells a settled study from one with a run still going", () => {
    const runs = [{ status: "SUCCEEDED" }, { status: "FAILED" }, { status: "RUNNING" }, { status: "QUEUED" }];
    expect(runStatusCounts(runs)).toEqual({ total: 4, finished: 2, succeeded: 1, failed: 1, aborted: 0 });
    expect(runs.filter((r) => isRunInProgress(r.status)).map((r) => r.status)).toEqual(["RUNNING"]);
    expect(isStudySettled({ status: "ABORTED", runs })).toBe(false);
    expect(isStudySettled({ status: "ABORTED", runs: runs.slice(0, 2) })).toBe(true);
    expect(isStudySettled({ status: "RUNNING", runs: runs.slice(0, 2) })).toBe(false);
  });
});

describe("study cells", () => {
  it("derives cells from runs for studies made before cells were recorded, and finds each run's cell", () => {
    const run = (t: string, w: string) => ({ targetId: t, workloadId: w, target: { name: `T${t}` }, workload: { name: `W${w}` } });
    const cells = cellsFromRuns([run("1", "a"), run("2", "a"), run("1", "a")]);
    expect(cells.map((c) => `${c.target}/${c.workload}`)).toEqual(["T1/Wa", "T2/Wa"]);
    expect(cellIndexOf(cells, { targetId: "2", workloadId: "a" })).toBe(1);
    expect(cellIndexOf(cells, { targetId: null, workloadId: "a" })).toBe(-1);
  });

  it("takes a run's result only once it succeeded, and the spread over the results", () => {
    expect(studyRunResult({ status: "FAILED", summary: summaryOf([5]) })).toBeNull();
    const results = [
      studyRunResult({ status: "SUCCEEDED", summary: summaryOf([10]) })!,
      studyRunResult({ status: "SUCCEEDED", summary: summaryOf([20]) })!,
    ];
    const stats = cellStats(results);
    expect(stats.p50.mean).toBeCloseTo(15, 1);
    expect(stats.p50.n).toBe(2);
    expect(stats.p50.sd).not.toBeNull();
  });
});

describe("comparison samples", () => {
  const bucket = (requests: number, p95Ms: number): TimeBucket => ({
    offsetSeconds: 0,
    requests,
    p50Ms: p95Ms,
    p95Ms,
    p99Ms: p95Ms,
    goodput: 100,
  });
  const p95 = METRIC_CATALOG.find((m) => m.key === "p95")!;

  it("uses repetitions when a group has two analysed runs, else its time windows", () => {
    const reps = comparisonSamples({ label: "a", summaries: [summaryOf([10]), null, summaryOf([30])], windows: [bucket(5, 99)] }, p95);
    expect(reps).toMatchObject({ sample: { kind: "runs", values: [10, 30] } });
    const rps = METRIC_CATALOG.find((m) => m.key === "req/s")!;
    const windows = comparisonSamples({ label: "b", summaries: [summaryOf([10])], windows: [bucket(5, 7), bucket(6, 8)] }, rps);
    expect(windows).toEqual({ label: "b", sample: { kind: "seconds", values: [5, 6] } });
    // A single run's percentile is never a mean of its seconds' percentiles: without its whole-run histogram, no values.
    expect(comparisonSamples({ label: "b", summaries: [summaryOf([10])], windows: [bucket(5, 7)] }, p95).sample).toEqual({
      kind: "seconds",
      values: [],
    });
  });

  it("judges a single run against repetitions as one run value (their spread for both), and every group against the first", () => {
    const one = { label: "one", summaries: [summaryOf([10])], windows: [bucket(5, 7)] };
    const many = (label: string, ms: number) => ({ label, summaries: [summaryOf([ms]), summaryOf([ms + 1])], windows: [] });
    // A single run against repetitions: its run value against theirs, never its seconds against run values.
    const mixed = comparisonVerdicts([one, many("b", 20)]);
    expect(mixed).toHaveLength(METRIC_CATALOG.length);
    expect(mixed.every((v) => v.basis === "runs" && v.samples.join() === "1,2")).toBe(true);
    const p95 = mixed.find((v) => v.metric === "p95")!;
    expect(p95.method).toBe("single-run-t");
    // The repetitions' p95s differ by 1 ms: s = 0.707, se = s sqrt(1/2 + 1), 1 df.
    expect(p95.standardError).toBeCloseTo(Math.SQRT1_2 * Math.sqrt(1.5), 1);
    expect(p95.df).toBe(1);
    const verdicts = comparisonVerdicts([many("a", 10), many("b", 20), many("c", 30)]);
    expect(new Set(verdicts.map((v) => `${v.baseline}>${v.candidate}`))).toEqual(new Set(["a>b", "a>c"]));
    expect(verdicts.filter((v) => v.candidate === "b").map((v) => v.metric)).toEqual(METRIC_CATALOG.map((m) => m.key));
  });
});

describe("group costs and break-even", () => {
  const cost = (over: Partial<RunCost>): RunCost => ({
    kind: "reserved",
    unit: "USD",
    total: 2,
    requests: 1000,
    successfulRequests: 1000,
    perThousandRequests: 2,
    perThousandSuccessfulRequests: 2,
    lines: [],
    notes: [],
    source: "inline",
    model: { kind: "reserved", unit: "USD", pricePerNodeSecond: 0.001 } as RunCost["model"],
    meanBilledSeconds: null,
    ...over,
  });

  it("adds a group's priced runs up per 1,000 successful requests (and all requests), and is null when none was priced", () => {
    expect(groupCost([undefined, null])).toBeNull();
    expect(groupCost([cost({}), cost({ total: 4, requests: 1000, source: "cat@1" }), undefined])).toEqual({
      unit: "USD",
      total: 6,
      perThousandRequests: 3,
      perThousandSuccessfulRequests: 3,
      source: "inline, cat@1",
      assumptions: [],
    });
    // A run priced on an assumption (no replica data) marks the group's cost as estimated.
    const assumed = "no replica or instance data was recorded for this run: priced as one node throughout";
    expect(groupCost([cost({}), cost({ assumptions: [assumed], estimated: true })])!.assumptions).toEqual([assumed]);
  });

  it("pairs only a reserved group with a request-billed one", () => {
    const sf = {
      label: "vm",
      cost: cost({}),
      rps: 100,
      capacity: groupCapacity([{ saturated: true, capacityRps: 100, why: "a knee" }], 100),
      replicas: [1, 1],
    };
    expect(breakEvenPairs([sf, { ...sf, label: "vm2" }])).toEqual([]);
  });
});
