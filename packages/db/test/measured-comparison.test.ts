// Comparisons of imported k6 files (written here with known statuses and latencies, imported by the real
// `opsbench import k6` into the real database): flagged runs are left out of the verdicts unless asked and the
// exclusion is said; a study's warm-up is left out of the rollup a comparison reads; latency is of successful
// responses first. Every right answer is computed here from the samples written to the files.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addRunFlags, storeRunRollup } from "../src";
import { openTestStack } from "../../../tests/helpers";
import { exactQuantile as exact, importK6Requests, type WrittenRequest } from "../../../tests/k6-result-files";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let dir: string;
const T0 = Date.UTC(2026, 10, 25, 4, 0, 0);

/** 40 s at 8 req/s; `slow` ms added to every success; a share `failShare` of requests are instant 503s; slow first 10 s. */
function samples(seed: number, slow: number, failShare: number): WrittenRequest[] {
  const out: WrittenRequest[] = [];
  for (let s = 0; s < 40; s++)
    for (let k = 0; k < 8; k++) {
      const i = s * 8 + k;
      const fail = ((i * 7 + seed) % 100) / 100 < failShare;
      const base = s < 10 ? 400 : 50 + ((i * 13 + seed * 5) % 40);
      out.push({ atMs: s * 1000 + k * 120, ms: fail ? 1 : base + slow, ok: !fail });
    }
  return out;
}

const importRun = (name: string, reqs: readonly WrittenRequest[]) => importK6Requests(dir, name, reqs, { t0: T0 });

const files: Record<string, WrittenRequest[]> = {};
const ids: Record<string, string> = {};

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-measure-"));
  for (const seed of [1, 2, 3]) {
    files[`a${seed}`] = samples(seed, 0, 0);
    // B: the same service 20 ms slower, answering 25% of requests with instant 503s.
    files[`b${seed}`] = samples(seed, 20, 0.25);
  }
  for (const [name, reqs] of Object.entries(files)) ids[name] = await importRun(`measure-${name}`, reqs);
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await stack?.close();
});

const groups = () => [
  { label: "A", runIds: [ids.a1!, ids.a2!, ids.a3!] },
  { label: "B", runIds: [ids.b1!, ids.b2!, ids.b3!] },
];
const okP95 = (reqs: WrittenRequest[]) =>
  exact(
    reqs.filter((r) => r.ok).map((r) => r.ms),
    0.95,
  );
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe("comparisons of imported k6 files", () => {
  it("judges p95 on successful responses: the slower side is not made faster by its instant 503s", async () => {
    const view = await stack.scope.compare(groups());
    const p95 = view.verdicts.find((v) => v.metric === "p95")!;
    const a = mean(["a1", "a2", "a3"].map((n) => okP95(files[n]!)));
    const b = mean(["b1", "b2", "b3"].map((n) => okP95(files[n]!)));
    expect(Math.abs(p95.baselineMean! - a) / a).toBeLessThan(0.01);
    expect(Math.abs(p95.estimate! - (b - a))).toBeLessThan(0.01 * b);
    expect(p95.estimate!).toBeGreaterThan(0);
    // The merged table row: successful responses' latency beside every response's.
    const merged = view.groups[1]!.merged!;
    const bAll = ["b1", "b2", "b3"].flatMap((n) => files[n]!);
    const within1 = (got: number, want: number) => expect(Math.abs(got - want) / want).toBeLessThan(0.01);
    within1(
      merged.successLatencyMs!.p50,
      exact(
        bAll.filter((r) => r.ok).map((r) => r.ms),
        0.5,
      ),
    );
    within1(
      merged.latencyMs.p50,
      exact(
        bAll.map((r) => r.ms),
        0.5,
      ),
    );
    expect(view.groups[1]!.byRequest[0]!.p50).toBe(merged.successLatencyMs!.p50);
  });

  it("leaves flagged runs out of the verdicts and says so, unless includeFlagged", async () => {
    await addRunFlags(stack.db, ids.b2!, [{ code: "dropped-iterations", message: "12 iterations dropped" }]);
    await addRunFlags(stack.db, ids.a3!, [{ code: "closed-loop", message: "closed loop" }]);
    const view = await stack.scope.compare(groups());
    expect(view.verdictExclusions).toEqual({
      includeFlagged: false,
      excluded: [{ group: "B", runId: ids.b2!, flags: ["dropped-iterations"] }],
    });
    const p95 = view.verdicts.find((v) => v.metric === "p95")!;
    expect(p95.samples).toEqual([3, 2]);
    const b = mean(["b1", "b3"].map((n) => okP95(files[n]!)));
    const a = mean(["a1", "a2", "a3"].map((n) => okP95(files[n]!)));
    expect(Math.abs(p95.estimate! - (b - a))).toBeLessThan(0.01 * b);
    // The run is still listed and merged.
    expect(view.groups[1]!.runs.map((r) => r.id)).toContain(ids.b2);
    expect(view.groups[1]!.merged!.requests).toBe(3 * 320);

    const all = await stack.scope.compare(groups(), { includeFlagged: true });
    expect(all.verdictExclusions).toEqual({ includeFlagged: true, excluded: [] });
    expect(all.verdicts.find((v) => v.metric === "p95")!.samples).toEqual([3, 3]);
  });

  it("leaves a study's warm-up out of the rollup a comparison reads", async () => {
    const study = await stack.db.study.create({
      data: { workspaceId: stack.scope.workspaceId, name: "measure-warmup-import", warmupSeconds: 10 },
    });
    await stack.db.run.update({ where: { id: ids.a1! }, data: { studyId: study.id } });
    await storeRunRollup(stack.db, ids.a1!);
    const view = await stack.scope.compare([{ runIds: [ids.a1!] }]);
    const steady = files.a1!.filter((r) => r.atMs >= 10_000);
    const merged = view.groups[0]!.merged!;
    expect(merged.requests).toBe(steady.length);
    expect(merged.latencyMs.max).toBe(Math.max(...steady.map((r) => r.ms)));
    expect(
      Math.abs(
        merged.latencyMs.p99 -
          exact(
            steady.map((r) => r.ms),
            0.99,
          ),
      ) / merged.latencyMs.p99,
    ).toBeLessThan(0.01);
    // Its series starts at the end of the warm-up (second 0 of the measured window).
    expect(view.groups[0]!.series[0]!.offsetSeconds).toBe(0);
    expect(view.groups[0]!.series.reduce((n, b) => n + b.requests, 0)).toBe(steady.length);
  });
});
