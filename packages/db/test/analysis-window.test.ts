// A run's analysis window (issue 34, finding 7), from k6 files written here with every request known and imported
// by the real `opsbench import k6`: a run that starts slow has its warm-up detected (MSER-5) and left out of its
// summary, with a flag; a steady run keeps every second; the 1-second zoom of a group counts a repetition's outage
// as its zeros. Every right answer is computed here from the requests written to the files.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readFlags, readStoredJson, runSummarySchema } from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStack } from "../../../tests/helpers";
import { exactQuantile as exact, importK6Requests, type WrittenRequest } from "../../../tests/k6-result-files";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let dir: string;
const T0 = Date.UTC(2026, 10, 29, 5, 0, 0);
/** Where the slow start of the warm-up file ends (s after its first request). */
const WARMUP_ENDS = 20;

/**
 * `seconds` s at 8 req/s, successes; latency 40 + a ramp over each 40 requests (a 5 s batch's mean is the same in
 * every batch: steady), plus `extra(s)` ms in second s.
 */
function steady(seconds: number, extra: (s: number) => number, skip: (s: number) => boolean = () => false): WrittenRequest[] {
  const out: WrittenRequest[] = [];
  for (let s = 0; s < seconds; s++)
    for (let k = 0; k < 8; k++) {
      if (skip(s)) continue;
      const i = s * 8 + k;
      out.push({ atMs: s * 1000 + k * 120, ms: 40 + ((i * 13) % 40) + extra(s), ok: true });
    }
  return out;
}

const files: Record<string, WrittenRequest[]> = {
  // Slow first 20 s (a cold cache, say): 300 ms more at second 0, falling by 15 ms a second to 0 at second 20.
  warm: steady(90, (s) => (s < WARMUP_ENDS ? (WARMUP_ENDS - s) * 15 : 0)),
  flat: steady(90, () => 0),
  // The same slow start, at twice the rate (16 req/s) until second 20: its maximum throughput is the warm-up's.
  burst: steady(90, (s) => (s < WARMUP_ENDS ? (WARMUP_ENDS - s) * 15 : 0)).flatMap((r) =>
    r.atMs < WARMUP_ENDS * 1000 ? [r, { ...r, atMs: r.atMs + 60 }] : [r],
  ),
  // Two repetitions of one configuration; the second answers nothing from second 30 to 39 (an outage).
  rep1: steady(60, () => 0),
  rep2: steady(
    60,
    () => 0,
    (s) => s >= 30 && s < 40,
  ),
};
const ids: Record<string, string> = {};

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-window-"));
  for (const [name, reqs] of Object.entries(files)) ids[name] = await importK6Requests(dir, `window-${name}`, reqs, { t0: T0 });
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await stack?.close();
});

const runOf = async (id: string) => {
  const run = await stack.db.run.findUniqueOrThrow({ where: { id }, select: { summary: true, flags: true } });
  return { summary: readStoredJson(runSummarySchema, run.summary)!, flags: readFlags(run.flags) };
};

describe("a run's analysis window", () => {
  it("detects a slow start, leaves it out of the summary and the rollup, and flags it", async () => {
    const { summary, flags } = await runOf(ids.warm!);
    const cut = summary.warmupSeconds ?? 0;
    expect(Math.abs(cut - WARMUP_ENDS)).toBeLessThanOrEqual(5);
    expect(summary.warmupDetection?.rule).toBe("MSER-5");
    const kept = files.warm!.filter((r) => r.atMs >= cut * 1000);
    expect(summary.requests).toBe(kept.length);
    const p95 = exact(
      kept.map((r) => r.ms),
      0.95,
    );
    // The histogram's buckets are within 1%; the whole file's p95 (with the slow start) is far above that.
    expect(Math.abs(summary.successLatencyMs!.p95 - p95) / p95).toBeLessThan(0.01);
    const wholeP95 = exact(
      files.warm!.map((r) => r.ms),
      0.95,
    );
    expect(wholeP95 / p95).toBeGreaterThan(1.5);
    // req/s over the window after the cut: the file's last request is at 89.84 s.
    expect(summary.durationSeconds).toBeCloseTo(89.84 - cut, 2);
    const flag = flags.find((f) => f.code === "warm-up-detected");
    expect(flag?.message).toContain(`first ${cut} s`);
    expect(flag?.message).toContain("MSER-5");
    // The comparison reads the same window (its rollup).
    const view = await stack.scope.compare([{ runIds: [ids.warm!] }]);
    expect(view.groups[0]!.merged!.requests).toBe(kept.length);
  });

  it("takes a study table's maximum throughput and CPU over the window after the detected warm-up", async () => {
    const { summary } = await runOf(ids.burst!);
    const cut = summary.warmupSeconds ?? 0;
    expect(Math.abs(cut - WARMUP_ENDS)).toBeLessThanOrEqual(5);
    // CPU 90% in the warm-up's seconds, 30% after (a point a second).
    const start = files.burst![0]!.atMs + T0;
    await stack.db.infraPoint.createMany({
      data: Array.from({ length: 90 }, (_, s) => ({
        runId: ids.burst!,
        ts: new Date(start + s * 1000),
        replicas: 1,
        cpuPercent: s < cut ? 90 : 30,
      })),
    });
    const study = await stack.db.study.create({ data: { workspaceId: stack.scope.workspaceId, name: "window-tables" } });
    await stack.db.run.update({ where: { id: ids.burst! }, data: { studyId: study.id } });
    const tables = await stack.scope.studies.tables(study.id);
    const stats = tables.cells[0]!.stats;
    // After the cut every second has 8 successes: the highest 10 s moving average is 8 req/s (the warm-up's is 16).
    const perSecond = new Map<number, number>();
    for (const r of files.burst!)
      if (r.atMs >= cut * 1000) perSecond.set(Math.floor(r.atMs / 1000), (perSecond.get(Math.floor(r.atMs / 1000)) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBe(8);
    expect(stats.maxThroughput!.mean).toBe(8);
    expect(stats.cpuPercent!.mean).toBe(30);
  });

  it("keeps every second of a steady run, without a flag", async () => {
    const { summary, flags } = await runOf(ids.flat!);
    expect(summary.warmupSeconds).toBeUndefined();
    expect(summary.warmupDetection).toEqual({ rule: "MSER-5", batches: 17, truncatedBatches: 0 });
    expect(summary.requests).toBe(files.flat!.length);
    expect(flags.filter((f) => f.code === "warm-up-detected")).toEqual([]);
  });

  it("counts a repetition's outage as its zeros in the group's 1-second zoom", async () => {
    const group = [{ label: "A", runIds: [ids.rep1!, ids.rep2!] }];
    // Requests per second of each run, from the files; the group's figure is their mean over both runs.
    const perSecond = (reqs: WrittenRequest[], s: number) => reqs.filter((r) => Math.floor(r.atMs / 1000) === s).length;
    const want = (s: number) => (perSecond(files.rep1!, s) + perSecond(files.rep2!, s)) / 2;
    for (const [from, to] of [
      [30, 40],
      [25, 45],
    ] as const) {
      const w = await stack.scope.compareWindow(group, from, to);
      expect(w.bucketSeconds).toBe(1);
      const got = w.series[0]!;
      expect(got.map((b) => b.offsetSeconds)).toEqual(Array.from({ length: to - from }, (_, i) => from + i));
      for (const b of got) expect(b.requests).toBe(want(b.offsetSeconds));
    }
    // Inside the outage: half of one run's 8 req/s.
    expect(want(35)).toBe(4);
  });
});
