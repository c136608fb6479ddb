// Issue 22, findings 1, 2 and 3, on k6 JSON files a generator here writes with known contents: each file goes
// through the import reader (readK6File) into the real database (createImportedRun stores its rollup), and the
// comparison's verdicts and merged series are checked against values computed here from the generated requests
// (exact whole-run percentiles by sorting, per-second counts by counting), never by the code under test.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seededRandom } from "@opsbench/core";
import { createDb, createImportedRun, defaultWorkspaceId, workspaceScope } from "@opsbench/db";
import { testDatabaseUrl } from "../../../tests/helpers";
import { verdictLine } from "../src/demo-verdict";
import { readK6File } from "../src/read-k6-file";

// The database only (no queue or worker: nothing here runs k6).
let stack: { db: ReturnType<typeof createDb>; scope: ReturnType<typeof workspaceScope> };
let dir: string;

beforeAll(async () => {
  const db = createDb(testDatabaseUrl(), { max: 3 });
  stack = { db, scope: workspaceScope(db, await defaultWorkspaceId(db)) };
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-verdicts-"));
});
afterAll(async () => {
  await stack?.db.$disconnect();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A generated run: per second, the latencies (ms) of the requests completed in it; a vus point every second keeps the load window whole. */
interface GeneratedRun {
  name: string;
  seconds: number;
  latencies: (second: number) => number[];
  /** Per second, the latencies of failed responses (503, not an expected response), if any. */
  failures?: (second: number) => number[];
}

const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);
let fileNo = 0;

/** Writes the run as k6's `--out json` lines, imports it, and returns its id. */
async function importGenerated(run: GeneratedRun): Promise<string> {
  const lines: string[] = [];
  const point = (metric: string, ms: number, value: number, tags: Record<string, string> = {}) =>
    lines.push(JSON.stringify({ type: "Point", metric, data: { time: new Date(ms).toISOString(), value, tags } }));
  for (let s = 0; s < run.seconds; s++) {
    point("vus", T0 + s * 1000, 10);
    const ok = run.latencies(s);
    const failed = run.failures?.(s) ?? [];
    const all = [...ok.map((ms) => ({ ms, ok: true })), ...failed.map((ms) => ({ ms, ok: false }))];
    for (const [i, r] of all.entries())
      point("http_req_duration", T0 + s * 1000 + Math.floor(((i + 0.5) * 1000) / all.length), r.ms, {
        name: "GET /",
        status: r.ok ? "200" : "503",
        expected_response: String(r.ok),
      });
  }
  point("vus", T0 + run.seconds * 1000, 0);
  const file = path.join(dir, `run-${++fileNo}.json`);
  await writeFile(file, `${lines.join("\n")}\n`);
  const r = (await readK6File(file)).result;
  const created = await createImportedRun(stack.db, stack.scope.workspaceId, {
    name: run.name,
    loadStartedAt: new Date(r.loadWindow!.startMs),
    loadFinishedAt: new Date(r.loadWindow!.endMs),
    durationSource: r.loadWindow!.source,
    cells: r.cells,
    load: r.load,
    events: [],
  });
  return created.id;
}

/** k6's percentile: rank p (n - 1) of the sorted values, interpolated. */
function exactQuantile(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  const r = p * (s.length - 1);
  const lo = s[Math.floor(r)]!;
  return lo + (s[Math.ceil(r)]! - lo) * (r - Math.floor(r));
}

/** Latencies drawn once per run from one distribution: 5 ms plus an exponential of mean 15 ms (inverse CDF of a seeded uniform). */
function latencyDraws(seed: number, perSecond: number, seconds: number, scale = 1): number[][] {
  const u = seededRandom(seed);
  return Array.from({ length: seconds }, () => Array.from({ length: perSecond }, () => scale * (5 - 15 * Math.log(1 - u()))));
}

/** The histogram's relative precision (0.8%), both sides, with room for the interpolation between buckets. */
const HISTOGRAM_TOLERANCE = 0.02;

describe("finding 1: single runs are within-run unless a run-to-run CV is stated", () => {
  it("says what two runs of identical configurations 5% apart showed, never 'significant'; a stated CV widens the interval", async () => {
    // The same draws, the second run 5% slower throughout: a level shift between runs (a redeploy, placement).
    const draws = latencyDraws(11, 50, 120);
    const a = await importGenerated({ name: "f1 a", seconds: 120, latencies: (s) => draws[s]! });
    const b = await importGenerated({ name: "f1 b", seconds: 120, latencies: (s) => draws[s]!.map((x) => 1.05 * x) });
    const pA = exactQuantile(draws.flat(), 0.95);
    const pB = exactQuantile(
      draws.flat().map((x) => 1.05 * x),
      0.95,
    );

    const view = await stack.scope.compare([
      { label: "A", runIds: [a] },
      { label: "B", runIds: [b] },
    ]);
    const p95 = view.verdicts.find((v) => v.metric === "p95")!;
    expect(p95.scope).toBe("within-run");
    expect(p95.estimate! / (pB - pA)).toBeCloseTo(1, 0);
    expect(Math.abs(p95.estimate! - (pB - pA))).toBeLessThan(HISTOGRAM_TOLERANCE * pB);
    // The two runs did differ (beyond 0 with margin 0), and that is said as within-run, never as significant.
    expect(view.verdicts.every((v) => v.significant === false)).toBe(true);
    const judged = view.verdicts.filter((v) => v.method !== "none");
    expect(judged.every((v) => v.scope === "within-run")).toBe(true);
    // The primary metric's verdict says "within-run" first; the others say they are descriptive.
    expect(judged.every((v) => (v.role === "primary" ? /^within-run/ : /^descriptive/).test(v.text))).toBe(true);
    // The CLI's line says so too: nothing significant, the within-run ones counted apart.
    const line = verdictLine({ groups: [], costs: [], breakEvens: [], verdicts: view.verdicts });
    expect(line).toMatch(
      /no verdict between configurations; 1 within-run \(single runs; never significant\); \d descriptive \(other metrics; never significant\)$/,
    );

    // Stated CV 5%: the interval is at least 1.96 x 0.05 x sqrt(pA^2 + pB^2) each side of the estimate, and covers zero.
    const widened = (
      await stack.scope.compare(
        [
          { label: "A", runIds: [a] },
          { label: "B", runIds: [b] },
        ],
        { runToRunCv: 0.05 },
      )
    ).verdicts.find((v) => v.metric === "p95")!;
    expect(widened.scope).toBe("between-configurations");
    expect(widened.runToRunCv).toBe(0.05);
    expect(widened.estimate! - widened.low!).toBeGreaterThanOrEqual(1.959 * 0.05 * Math.hypot(pA, pB));
    expect(widened.low!).toBeLessThan(0);
    expect(widened.significant).toBe(false);
    // The widening does not make single runs "never significant": a third run 30% slower, stated CV 2%, is.
    const c = await importGenerated({ name: "f1 c", seconds: 120, latencies: (s) => draws[s]!.map((x) => 1.3 * x) });
    const far = (
      await stack.scope.compare(
        [
          { label: "A", runIds: [a] },
          { label: "C", runIds: [c] },
        ],
        { runToRunCv: 0.02 },
      )
    ).verdicts.find((v) => v.metric === "p95")!;
    expect(far.estimate! / (1.3 * pA - pA)).toBeCloseTo(1, 1);
    expect(far.outcome).toBe("baseline-better");
    expect(far.significant).toBe(true);
  });
});

describe("finding 2: percentile verdicts on whole-run percentiles", () => {
  it("runs with one latency distribution at 10 and 100 req/s: the p99 estimate is the whole-run p99s' difference, not the per-second p99s'", async () => {
    const slow = latencyDraws(21, 10, 300);
    const fast = latencyDraws(22, 100, 300);
    const a = await importGenerated({ name: "f2 10 req/s", seconds: 300, latencies: (s) => slow[s]! });
    const b = await importGenerated({ name: "f2 100 req/s", seconds: 300, latencies: (s) => fast[s]! });
    const wholeA = exactQuantile(slow.flat(), 0.99);
    const wholeB = exactQuantile(fast.flat(), 0.99);
    // The old way, computed here: the mean of per-second p99s rises with the requests in a second.
    const perSecondMean = (runs: number[][]) => runs.reduce((s, xs) => s + exactQuantile(xs, 0.99), 0) / runs.length;
    const oldDifference = perSecondMean(fast.slice(1, 299)) - perSecondMean(slow.slice(1, 299));
    expect(oldDifference).toBeGreaterThan(10);
    expect(Math.abs(wholeB - wholeA)).toBeLessThan(0.1 * wholeA);

    const view = await stack.scope.compare(
      [
        { label: "10 req/s", runIds: [a] },
        { label: "100 req/s", runIds: [b] },
      ],
      {
        runToRunCv: 0.02,
      },
    );
    const p99 = view.verdicts.find((v) => v.metric === "p99")!;
    expect(p99.method).toBe("moving-block-bootstrap");
    expect(Math.abs(p99.estimate! - (wholeB - wholeA))).toBeLessThan(HISTOGRAM_TOLERANCE * wholeB);
    expect(Math.abs(p99.estimate! - oldDifference)).toBeGreaterThan(5);
    // Same distribution: the interval covers the true difference, 0, and no side is called better.
    expect(p99.low!).toBeLessThanOrEqual(0);
    expect(p99.high!).toBeGreaterThanOrEqual(0);
    expect(p99.significant).toBe(false);
  });
});

describe("finding 5: a single run's percentile verdict is on successful responses, as its point value", () => {
  it("30% instant 503s beside the same successful latencies: the p50 estimate is the successful p50s' difference, not every response's", async () => {
    const okA = latencyDraws(51, 70, 120);
    const okB = latencyDraws(52, 100, 120);
    const a = await importGenerated({
      name: "f5 fast failures",
      seconds: 120,
      latencies: (s) => okA[s]!,
      failures: () => Array(30).fill(1),
    });
    const b = await importGenerated({ name: "f5 no failures", seconds: 120, latencies: (s) => okB[s]! });
    const successDifference = exactQuantile(okB.flat(), 0.5) - exactQuantile(okA.flat(), 0.5);
    const everyDifference = exactQuantile(okB.flat(), 0.5) - exactQuantile([...okA.flat(), ...Array(30 * 120).fill(1)], 0.5);
    // What mixing in the failures would say, computed here: A looks several ms faster.
    expect(everyDifference).toBeGreaterThan(5);
    expect(Math.abs(successDifference)).toBeLessThan(1.5);

    const view = await stack.scope.compare(
      [
        { label: "fast failures", runIds: [a] },
        { label: "no failures", runIds: [b] },
      ],
      { runToRunCv: 0.02 },
    );
    const p50 = view.verdicts.find((v) => v.metric === "p50")!;
    expect(Math.abs(p50.estimate! - successDifference)).toBeLessThan(HISTOGRAM_TOLERANCE * exactQuantile(okB.flat(), 0.5));
    expect(p50.low!).toBeLessThanOrEqual(successDifference);
    expect(p50.high!).toBeGreaterThanOrEqual(successDifference);
    expect(p50.significant).toBe(false);
    // Every response's p95 is judged too, beside it.
    expect(view.verdicts.some((v) => v.metric === "p95 (all responses)")).toBe(true);
  });
});

describe("finding 3: seconds without a completed request count as zero", () => {
  it("a run stalling 100 of 300 s: req/s is judged on every second of the window, zeros included", async () => {
    const steady = await importGenerated({ name: "f3 steady", seconds: 300, latencies: () => Array(20).fill(10) });
    // Ten stalls of 10 s (seconds 20-29, 50-59, ..., 290-299): no completions, the load (vus) goes on.
    const stalled = (s: number) => s % 30 >= 20;
    const stalling = await importGenerated({ name: "f3 stalling", seconds: 300, latencies: (s) => (stalled(s) ? [] : Array(20).fill(10)) });
    // The verdict windows: whole seconds 1..299 of the 300 s window.
    const windowSeconds = Array.from({ length: 299 }, (_, i) => i + 1);
    const meanA = 20;
    const meanB = windowSeconds.reduce((sum, s) => sum + (stalled(s) ? 0 : 20), 0) / windowSeconds.length;

    const view = await stack.scope.compare(
      [
        { label: "steady", runIds: [steady] },
        { label: "stalling", runIds: [stalling] },
      ],
      // Throughput as the primary metric, so its verdict is one of the family (the others are descriptive).
      { runToRunCv: 0.02, primaryMetric: "req/s" },
    );
    const rps = view.verdicts.find((v) => v.metric === "req/s")!;
    expect(rps.role).toBe("primary");
    expect(rps.samples).toEqual([299, 299]);
    expect(rps.estimate).toBeCloseTo(meanB - meanA, 9);
    expect(rps.outcome).toBe("baseline-better");
    expect(rps.significant).toBe(true);
  });

  it("merged repetitions: a run reaches every bucket inside its load window, so one repetition's outage shows", async () => {
    const ok = () => Array(10).fill(5);
    const r1 = await importGenerated({ name: "f3 rep 1", seconds: 100, latencies: ok });
    // An outage in seconds 40-69, and one from 80 s to the end of the window (its vus points go on to 100 s).
    const r2 = await importGenerated({ name: "f3 rep 2", seconds: 100, latencies: (s) => (s >= 40 && s < 70 ? [] : ok()) });
    const r3 = await importGenerated({ name: "f3 rep 3", seconds: 100, latencies: (s) => (s >= 80 ? [] : ok()) });
    const view = await stack.scope.compare([{ label: "cell", runIds: [r1, r2, r3] }]);
    const series = view.groups[0]!.series;
    const at = (offset: number) => series.find((b) => b.offsetSeconds === offset)!.requests;
    // Per 10 s bucket, 100 requests a run that completes; the mean over the three runs that reached it.
    expect(at(0)).toBeCloseTo(100, 9);
    for (const o of [40, 50, 60]) expect(at(o)).toBeCloseTo(200 / 3, 9);
    for (const o of [80, 90]) expect(at(o)).toBeCloseTo(200 / 3, 9);
    expect(series.map((b) => b.offsetSeconds)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
  });
});
