// Capacity only from runs that saturated (core's runs/saturation.ts), from k6 files written here and imported by
// the real `opsbench import k6`: a VU step ramp whose successful req/s stop rising at 30 while the VUs keep rising
// (saturated: its capacity is the plateau's), against a ramp whose req/s follow the VUs at flat latency (not
// saturated: capacity unknown, and a stable-at-80% rate from it is refused). Every right answer is computed here
// from the requests written to the files.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { groupCapacity, resolveRate, stableAtPercent } from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStack } from "../../../tests/helpers";
import { exactQuantile, importK6Requests, type WrittenLoadSecond, type WrittenRequest } from "../../../tests/k6-result-files";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let dir: string;
const T0 = Date.UTC(2026, 10, 26, 9, 0, 0);
const STAGE_SECONDS = 20;

interface Stage {
  vus: number;
  /** Successful responses each second of the stage. */
  ok: number;
}

/** A closed loop: each request takes VUs / (req/s) seconds, with a little spread; one iteration per request. */
function ramp(stages: readonly Stage[]) {
  const requests: WrittenRequest[] = [];
  const load: WrittenLoadSecond[] = [];
  stages.forEach((st, i) => {
    for (let k = 0; k < STAGE_SECONDS; k++) {
      const second = i * STAGE_SECONDS + k;
      for (let j = 0; j < st.ok; j++)
        requests.push({ atMs: second * 1000 + Math.floor((j * 1000) / st.ok), ms: (1000 * st.vus) / st.ok + (j % 7), ok: true });
      load.push({ second, iterations: st.ok, vus: st.vus });
    }
  });
  return { requests, load };
}

const SATURATING: Stage[] = [
  { vus: 10, ok: 10 },
  { vus: 20, ok: 20 },
  { vus: 30, ok: 30 },
  { vus: 40, ok: 30 },
  { vus: 50, ok: 31 },
];
const LINEAR: Stage[] = [10, 20, 30, 40, 50].map((vus) => ({ vus, ok: vus }));
const files = { saturating: ramp(SATURATING), linear: ramp(LINEAR) };
const ids: Record<keyof typeof files, string> = { saturating: "", linear: "" };

/** Successes of each second of a file. */
const perSecond = (reqs: readonly WrittenRequest[]) => {
  const out = new Map<number, number>();
  for (const r of reqs) if (r.ok) out.set(Math.floor(r.atMs / 1000), (out.get(Math.floor(r.atMs / 1000)) ?? 0) + 1);
  return out;
};
/** The highest 10 s mean of successes per second (study 004's maximum). */
const best10s = (reqs: readonly WrittenRequest[]) => {
  const s = perSecond(reqs);
  const last = Math.max(...s.keys());
  let best = 0;
  for (let a = 0; a + 10 <= last + 1; a++) {
    let sum = 0;
    for (let k = a; k < a + 10; k++) sum += s.get(k) ?? 0;
    best = Math.max(best, sum / 10);
  }
  return best;
};

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-capacity-"));
  for (const name of Object.keys(files) as Array<keyof typeof files>)
    ids[name] = await importK6Requests(dir, `capacity-${name}`, files[name].requests, { t0: T0, load: files[name].load });
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await stack?.close();
});

describe("capacity from saturated runs only", () => {
  it("the ramp that flattens at 30 req/s as the VUs keep rising saturated; its capacity is the plateau's req/s", async () => {
    const s = (await stack.scope.saturations([ids.saturating])).get(ids.saturating)!;
    // The plateau: the seconds from the stage where the VUs rose past the throughput's last rise (30 VUs) on.
    const kneeStage = SATURATING.findIndex((st, i) => i > 0 && SATURATING.slice(i + 1).some((later) => later.ok < st.ok * 1.05));
    const ok = perSecond(files.saturating.requests);
    const plateauSeconds = [...ok.keys()].filter((sec) => sec >= kneeStage * STAGE_SECONDS);
    const plateau = plateauSeconds.reduce((n, sec) => n + ok.get(sec)!, 0) / plateauSeconds.length;
    expect(kneeStage).toBe(2);
    expect(s).toMatchObject({ saturated: true, rule: "knee" });
    expect(s.capacityRps).toBeCloseTo(plateau, 2);
    // And the latency rose with it (a closed loop: VUs / req/s): p95 of the last stage half as high again as the first's.
    const stageP95 = (i: number) =>
      exactQuantile(
        files.saturating.requests.filter((r) => Math.floor(r.atMs / 1000 / STAGE_SECONDS) === i).map((r) => r.ms),
        0.95,
      );
    expect(stageP95(SATURATING.length - 1)).toBeGreaterThan(1.5 * stageP95(0));
    // A group of it has a measured capacity.
    expect(groupCapacity([s], best10s(files.saturating.requests))).toMatchObject({ known: true, rps: s.capacityRps });
  });

  it("the ramp whose req/s follow the VUs at flat latency did not saturate: capacity unknown, its maximum only the offered load", async () => {
    const s = (await stack.scope.saturations([ids.linear])).get(ids.linear)!;
    expect(s).toMatchObject({ saturated: false, rule: null, capacityRps: null });
    expect(s.why).toMatch(/capacity unknown/);
    const max = best10s(files.linear.requests);
    expect(groupCapacity([s], max)).toMatchObject({ known: false, offeredRps: max });
  });

  it("stable at 80% refuses the maximum of the run that did not saturate, naming it and why, and takes the saturated one's", async () => {
    const spec = stableAtPercent({ runId: ids.linear });
    const linear = await stack.scope.runs.measuredMax(ids.linear);
    expect(linear.maxThroughputRps).toBeCloseTo(best10s(files.linear.requests), 2);
    expect(() => resolveRate(spec, { ...linear, maxThroughputRps: linear.maxThroughputRps! })).toThrow(
      new RegExp(`run ${ids.linear} did not saturate \\(no limit reached`),
    );
    const saturated = await stack.scope.runs.measuredMax(ids.saturating);
    // An import's summary does not keep k6's iteration total yet (issue 34's finding 6): the file's own count stands in.
    const iterations = saturated.iterations || files.saturating.load.reduce((n, l) => n + (l.iterations ?? 0), 0);
    const resolved = resolveRate(stableAtPercent({ runId: ids.saturating }), {
      ...saturated,
      iterations,
      maxThroughputRps: saturated.maxThroughputRps!,
    });
    // One request per iteration: 80% of the best 10 s mean of successes, as iterations a second.
    expect(resolved.kind === "constant-arrival-rate" && resolved.rate).toBe(Math.round(0.8 * best10s(files.saturating.requests)));
  });
});
