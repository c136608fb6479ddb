// A real study run (real worker, k6 and Postgres) with a warm-up, a closed loop with a constant pause and two
// requests an iteration: the summary, the rollup and the study page count only the seconds after the warm-up (the
// right answer summed here from the stored rows with SQL), the run is flagged closed-loop with a corrected latency,
// and "50% of its maximum" is refused (two constant VUs never saturate) but its arithmetic resolves into iterations by
// the requests per iteration counted here from the rows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveRate, type WorkloadSpec } from "@opsbench/core";
import { loadStudyView } from "@opsbench/db";
import { createStudyQueue, startStudy } from "@opsbench/jobs";
import { openTestStack, taewaTarget, testRedisUrl, waitForFinal } from "../../../tests/helpers";
import { resolveWorkload } from "../src/pipeline/workload";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let studyQueue: ReturnType<typeof createStudyQueue>;
let runId = "";
const WARMUP = 3;

beforeAll(async () => {
  stack = await openTestStack();
  studyQueue = createStudyQueue(testRedisUrl());
  await stack.scope.targets.put(taewaTarget("measure-taewa", { replicas: 1 }));
  await stack.scope.workloads.put({
    name: "measure-closed",
    spec: {
      kind: "constant-vus",
      vus: 2,
      duration: "9s",
      thinkTime: "20ms",
      requestTimeout: "10s",
      requests: [
        { name: "first", method: "GET", path: "/?n=2000", headers: {} },
        { name: "second", method: "GET", path: "/?n=1000", headers: {} },
      ],
      thresholds: {},
    },
  });
  const { runs } = await startStudy(stack.scope, studyQueue, {
    name: "measure-warmup",
    targets: ["measure-taewa"],
    workloads: ["measure-closed"],
    repetitions: 1,
    order: "sequential",
    cooldownSeconds: 0,
    baselineWaitSeconds: 10,
    warmupSeconds: WARMUP,
  });
  runId = runs[0]!.id;
  expect((await waitForFinal(stack.db, runId, 240_000)).status).toBe("SUCCEEDED");
}, 300_000);
afterAll(async () => {
  await studyQueue.close();
  await stack.close();
});

/** Sums over the stored seconds at or after the warm-up's end (load start's second + WARMUP), in SQL. */
async function afterWarmupTotals() {
  const [r] = await stack.db.$queryRaw<Array<{ requests: bigint; ok: bigint; iterations: bigint; all: bigint }>>`
    SELECT
      (SELECT COALESCE(SUM(requests), 0) FROM result_seconds rs, runs r WHERE rs.run_id = r.id AND r.id = ${runId}::uuid
         AND rs.ts >= date_trunc('second', r.load_started_at) + make_interval(secs => ${WARMUP})) AS requests,
      (SELECT COALESCE(SUM(requests), 0) FROM result_seconds rs, runs r WHERE rs.run_id = r.id AND r.id = ${runId}::uuid
         AND rs.failures = 0 AND rs.ts >= date_trunc('second', r.load_started_at) + make_interval(secs => ${WARMUP})) AS ok,
      (SELECT COALESCE(SUM(iterations), 0) FROM load_seconds ls, runs r WHERE ls.run_id = r.id AND r.id = ${runId}::uuid
         AND ls.ts >= date_trunc('second', r.load_started_at) + make_interval(secs => ${WARMUP})) AS iterations,
      (SELECT COALESCE(SUM(requests), 0) FROM result_seconds WHERE run_id = ${runId}::uuid) AS all`;
  return { requests: Number(r!.requests), ok: Number(r!.ok), iterations: Number(r!.iterations), all: Number(r!.all) };
}

describe("a study's warm-up, a closed loop and a rate relative to a maximum (real run)", () => {
  it("leaves the warm-up out of the summary, the rollup and the study page alike", async () => {
    const totals = await afterWarmupTotals();
    expect(totals.requests).toBeGreaterThan(0);
    expect(totals.all).toBeGreaterThan(totals.requests);
    const run = await stack.scope.runs.view(runId);
    expect(run.summary!.warmupSeconds).toBe(WARMUP);
    expect(run.summary!.requests).toBe(totals.requests);
    expect(run.summary!.load!.iterations).toBe(totals.iterations);
    const rollup = await stack.db.runRollupCell.aggregate({ where: { runId, bucketSeconds: 0 }, _sum: { requests: true } });
    expect(rollup._sum.requests).toBe(totals.requests);
    const view = await stack.scope.compare([{ runIds: [runId] }]);
    expect(view.groups[0]!.merged!.requests).toBe(totals.requests);
    const study = await loadStudyView(stack.db, run.studyId!);
    expect(study.warmupSeconds).toBe(WARMUP);
    expect(study.cells[0]!.merged!.requests).toBe(totals.requests);
  });

  it("flags the closed loop for coordinated omission and gives the corrected latency (constant pause)", async () => {
    const run = await stack.scope.runs.view(runId);
    expect(run.flags.map((f) => f.code)).toContain("closed-loop");
    const co = run.summary!.coordinatedOmission!;
    expect(co.closedLoop).toBe(true);
    // The expected interval: the median answer plus the 20 ms pause spread over the requests of an iteration (about 2).
    const totals = await afterWarmupTotals();
    expect(co.expectedIntervalMs!).toBeGreaterThan(10);
    expect(co.expectedIntervalMs!).toBeCloseTo(run.summary!.successLatencyMs!.p50 + 20 / (totals.requests / totals.iterations), 2);
    // The correction adds, for each answer longer than twice the interval, values from the interval up to below that
    // answer: the max stays, and a quantile under the interval (the median, by the interval's definition) cannot fall.
    // A high quantile can fall when many answers a little over twice the interval gain values below it (CI saw the p99
    // go from 37.7 to 36.9 ms), so it is not asserted here; packages/core/test/measured-cells.test.ts checks the
    // correction's figures against a hand-built list.
    const ok = run.summary!.successLatencyMs!;
    expect(co.correctedLatencyMs!.max).toBeCloseTo(ok.max, 3);
    expect(co.correctedLatencyMs!.p50).toBeGreaterThanOrEqual(ok.p50);
    // A closed loop is a caveat, not a broken measurement: it is judged.
    const view = await stack.scope.compare([{ runIds: [runId] }]);
    expect(view.verdictExclusions.excluded).toEqual([]);
  });

  it("resolves 50% of the run's maximum into iterations by the requests one iteration sent, once the run counts as saturated", async () => {
    const totals = await afterWarmupTotals();
    const perIteration = totals.requests / totals.iterations;
    expect(perIteration).toBeGreaterThan(1.9);
    const run = await stack.scope.runs.view(runId);
    const maxRps = run.summary!.maxThroughput!.rps;
    const spec = {
      kind: "constant-arrival-rate",
      rate: { percentOfRunMax: 50, runId },
      timeUnit: "1s",
      duration: "10s",
      preAllocatedVUs: 2,
      requestTimeout: "10s",
      requests: [{ name: "first", method: "GET", path: "/", headers: {} }],
      thresholds: {},
    } as WorkloadSpec;
    // Two constant VUs never reach the target's limit: the worker refuses a rate from this run's maximum, naming it.
    const ref = await stack.scope.runs.measuredMax(runId);
    expect(ref.saturation.saturated).toBe(false);
    await expect(resolveWorkload(spec, stack.db, stack.scope.workspaceId)).rejects.toThrow(new RegExp(`run ${runId} did not saturate`));
    // The arithmetic, from the run's counts as the worker reads them, with the run stated saturated.
    const stated = { saturated: true, why: "stated for the arithmetic" };
    const resolved = resolveRate(spec, { ...ref, maxThroughputRps: ref.maxThroughputRps!, saturation: stated });
    if (resolved.kind !== "constant-arrival-rate") throw new Error("kind");
    expect(resolved.rate).toBe(Math.max(1, Math.round((0.5 * maxRps) / perIteration)));
    expect(resolved.rateSource).toMatchObject({ percentOfRunMax: 50, runId, maxThroughputRps: expect.closeTo(maxRps, 3) });
    expect(resolved.rateSource!.requestsPerIteration).toBeCloseTo(perIteration, 3);
    expect(resolved.rateSource!.iterationsPerSecond).toBeCloseTo((0.5 * maxRps) / perIteration, 3);
    // A named request's own maximum: "first" is sent once an iteration.
    const firstRef = await stack.scope.runs.measuredMax(runId, "first");
    const named = resolveRate({ ...spec, rate: { percentOfRunMax: 50, runId, request: "first" } } as WorkloadSpec, {
      ...firstRef,
      maxThroughputRps: firstRef.maxThroughputRps!,
      saturation: stated,
    });
    if (named.kind !== "constant-arrival-rate") throw new Error("kind");
    expect(named.rateSource!.request).toBe("first");
    expect(named.rateSource!.requestsPerIteration).toBeCloseTo(1, 1);
    await expect(
      resolveWorkload(
        { ...spec, rate: { percentOfRunMax: 50, runId, request: "nope" } } as WorkloadSpec,
        stack.db,
        stack.scope.workspaceId,
      ),
    ).rejects.toThrow(/no measured maximum for a request named "nope"/);
  });
});
