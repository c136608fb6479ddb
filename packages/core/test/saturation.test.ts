// Whether a run saturated (runs/saturation.ts), and the capacity and cost figures that depend on it: every
// expected number is computed here from the seconds the test makes.
import { describe, expect, it } from "vitest";
import { breakEvenPairs, groupCapacity, groupCost } from "../src/cost/group-cost";
import { priceRun } from "../src/cost/run-cost";
import { runSaturation, saturationOfSteps, type LoadStep } from "../src/runs/saturation";
import { resultCell } from "./result-cell";

const T0 = new Date(1_700_000_000_000);
const at = (second: number) => new Date(T0.getTime() + second * 1000);

/** Seconds of a run: each step 20 s, `vus` VUs, `ok` successes a second at `ms` latency. */
function run(steps: Array<{ vus: number; ok: number; ms: number; dropped?: number; iterations?: number }>) {
  const cells = [];
  const load = [];
  for (const [i, s] of steps.entries())
    for (let k = 0; k < 20; k++) {
      const second = i * 20 + k;
      cells.push(
        resultCell(
          second,
          Array.from({ length: s.ok }, (_, j) => s.ms + (j % 5)),
        ),
      );
      load.push({ ts: at(second), vus: s.vus, iterations: s.iterations ?? s.ok, droppedIterations: s.dropped ?? 0 });
    }
  return { cells, load };
}

describe("saturation", () => {
  it("a VU ramp whose successful req/s flatten at 30 while VUs keep rising saturated (a knee), capacity the plateau's mean", () => {
    const steps = [
      { vus: 10, ok: 10, ms: 100 },
      { vus: 20, ok: 20, ms: 100 },
      { vus: 30, ok: 30, ms: 100 },
      { vus: 40, ok: 30, ms: 300 },
      { vus: 50, ok: 31, ms: 600 },
    ];
    const { cells, load } = run(steps);
    const s = runSaturation(cells, load, T0);
    // The plateau: the steps from the 30-VU one on (30, 30, 31 req/s), each two 10 s steps.
    const plateau = [30, 30, 31];
    expect(s).toMatchObject({ saturated: true, rule: "knee" });
    expect(s.capacityRps).toBeCloseTo(plateau.reduce((a, b) => a + b, 0) / plateau.length, 2);
    expect(s.why).toMatch(/VUs rose from 30 to 40/);
  });

  it("a ramp whose req/s keep rising with the VUs at flat latency did not saturate: capacity unknown", () => {
    const { cells, load } = run([10, 20, 30, 40, 50].map((v) => ({ vus: v, ok: v, ms: 100 })));
    const s = runSaturation(cells, load, T0);
    expect(s).toMatchObject({ saturated: false, rule: null, capacityRps: null });
    expect(s.why).toMatch(/capacity unknown/);
  });

  it("a run shorter than two 10 s steps, or without load counts, cannot tell: capacity unknown, and it says why", () => {
    const short = run([{ vus: 5, ok: 50, ms: 10 }]);
    const nine = { cells: short.cells.slice(0, 9), load: short.load.slice(0, 9) };
    expect(runSaturation(nine.cells, nine.load, T0)).toMatchObject({ saturated: false, capacityRps: null });
    expect(runSaturation(nine.cells, nine.load, T0).why).toMatch(/too short to tell: 0 whole 10 s steps/);
    expect(runSaturation(short.cells, [], T0).why).toMatch(/offered load was not recorded/);
  });

  it("dropped iterations at 1% or more of those scheduled are a limit; under 1% are not", () => {
    const dropping = run([
      { vus: 50, ok: 40, ms: 100, iterations: 40, dropped: 0 },
      { vus: 50, ok: 40, ms: 100, iterations: 40, dropped: 2 },
    ]);
    const s = runSaturation(dropping.cells, dropping.load, T0);
    // 40 dropped of 1,600 + 40 scheduled = 2.4%.
    expect(s).toMatchObject({ saturated: true, rule: "dropped-iterations", capacityRps: 40 });
    const few = run([
      { vus: 50, ok: 40, ms: 100, iterations: 40, dropped: 0 },
      { vus: 50, ok: 40, ms: 100, iterations: 40, dropped: 0 },
    ]);
    few.load[30]!.droppedIterations = 5; // 5 of 1,605: 0.3%
    expect(runSaturation(few.cells, few.load, T0).saturated).toBe(false);
  });

  it("latency over 2x the first step's while throughput lags the offered load is a limit", () => {
    const steps: LoadStep[] = [
      { offsetSeconds: 0, offered: 10, okRps: 10, p95Ms: 50, droppedIterations: 0, iterations: 100 },
      { offsetSeconds: 10, offered: 12, okRps: 10.6, p95Ms: 90, droppedIterations: 0, iterations: 106 },
      { offsetSeconds: 20, offered: 16, okRps: 11.2, p95Ms: 140, droppedIterations: 0, iterations: 112 },
    ];
    // No knee (10 -> 16: +60% load, +12% req/s; 12 -> 16: +33% load, +5.7% req/s); offered x1.6, req/s x1.12 (under
    // half of +60%), p95 x2.8: the latency sign.
    const s = saturationOfSteps(steps, "arrival-rate");
    expect(s).toMatchObject({ saturated: true, rule: "latency", capacityRps: 11.2 });
    const flat = steps.map((x) => ({ ...x, p95Ms: 50 }));
    const noKnee = flat.map((x, i) => ({ ...x, okRps: x.offered * (i === 0 ? 1 : 0.95) }));
    expect(saturationOfSteps(noKnee, "arrival-rate").saturated).toBe(false);
  });
});

describe("capacity and cost from saturated runs only", () => {
  const price = (catalog: string, requests: number, failures: number) => {
    const r = priceRun(
      { catalog },
      { durationSeconds: 600, requests, failures, meanLatencySeconds: 0.05, replicas: [{ offsetSeconds: 0, replicas: 2 }] },
    );
    if (!r.ok) throw new Error(r.error);
    return r.cost;
  };

  it("a target answering 30% instant 503s costs total / (successes / 1000) per 1,000 successful requests", () => {
    const requests = 60_000;
    const failures = requests * 0.3;
    const cost = price("iot-study-cloud-run-europe-west3", requests, failures);
    const g = groupCost([cost])!;
    expect(g.perThousandSuccessfulRequests).toBeCloseTo(cost.total / ((requests - failures) / 1000), 10);
    // The descriptive all-requests figure is 30% lower: the failures would have made it look cheaper.
    expect(g.perThousandRequests! / g.perThousandSuccessfulRequests!).toBeCloseTo(0.7, 10);
  });

  it("the break-even draws a staircase from a saturated run, and no capacity from one that did not", () => {
    const vm = price("iot-study-gke-europe-west3", 60_000, 0);
    const fn = price("iot-study-cloud-run-europe-west3", 60_000, 0);
    const serverless = { label: "fn", cost: fn, rps: 100, capacity: groupCapacity([], null), replicas: [] };
    const saturated = groupCapacity([{ saturated: true, capacityRps: 120, why: "a knee" }], 130);
    const [measured] = breakEvenPairs([{ label: "vm", cost: vm, rps: 100, capacity: saturated, replicas: [2, 2] }, serverless]);
    expect(measured!.capacityPerNodeRps).toBe(60); // 120 req/s on 2 replicas
    expect(measured!.capacity.known).toBe(true);
    const offered = groupCapacity([{ saturated: false, capacityRps: null, why: "no limit reached" }], 130);
    const [unknown] = breakEvenPairs([{ label: "vm", cost: vm, rps: 100, capacity: offered, replicas: [2, 2] }, serverless]);
    expect(unknown!.capacityPerNodeRps).toBeNull();
    expect(unknown!.capacity).toMatchObject({ known: false, servedRps: 130, replicas: 2 });
    // No staircase: two replicas up to the 130 req/s they served, nothing drawn beyond.
    const drawn = unknown!.result.points.filter((p) => p.serverful !== null);
    expect(new Set(drawn.map((p) => p.nodes))).toEqual(new Set([2]));
    expect(Math.max(...drawn.map((p) => p.rps))).toBeLessThanOrEqual(130);
    expect(unknown!.result.points.some((p) => p.rps > 130 && p.serverful === null)).toBe(true);
  });
});
