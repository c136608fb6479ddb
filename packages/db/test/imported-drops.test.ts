// Dropped iterations of imported k6 files (issue 34, finding 6): files written here with known iterations and
// dropped_iterations counters, imported by the real `opsbench import k6` into the real database. The import keeps
// the load totals a live run's summary has, stores the same dropped-iterations flag with its share, and a run is
// left out of verdicts only when its share is over DROPPED_ITERATIONS_TOLERANCE. Every right answer (totals,
// shares, which runs are judged, p95) is computed here from what the test wrote.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DROPPED_ITERATIONS_TOLERANCE, readFlags, runSummarySchema } from "@opsbench/core";
import { openTestStack } from "../../../tests/helpers";
import { exactQuantile as exact, importK6Requests, type WrittenLoadSecond, type WrittenRequest } from "../../../tests/k6-result-files";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let dir: string;
const T0 = Date.UTC(2026, 10, 26, 4, 0, 0);
const SECONDS = 40;
const ITERATIONS_PER_SECOND = 50; // 2,000 iterations run in 40 s

/** 40 s at 8 req/s, every request a success; `slow` ms added to each. */
function samples(seed: number, slow: number): WrittenRequest[] {
  const out: WrittenRequest[] = [];
  for (let s = 0; s < SECONDS; s++)
    for (let k = 0; k < 8; k++) {
      const i = s * 8 + k;
      out.push({ atMs: s * 1000 + k * 120, ms: 50 + ((i * 13 + seed * 5) % 40) + slow, ok: true });
    }
  return out;
}

/** The load counters: 50 iterations a second, and `dropped` iterations spread over the first seconds (at most 10 a second). */
function loadCounters(dropped: number): WrittenLoadSecond[] {
  return Array.from({ length: SECONDS }, (_, second) => ({
    second,
    iterations: ITERATIONS_PER_SECOND,
    dropped: Math.max(0, Math.min(10, dropped - second * 10)),
  }));
}

interface WrittenFile {
  requests: WrittenRequest[];
  load: WrittenLoadSecond[];
}
const files: Record<string, WrittenFile> = {};
const ids: Record<string, string> = {};
/** What the test wrote: the sums of its counters. */
const written = (name: string) => {
  const load = files[name]!.load;
  const iterations = load.reduce((n, l) => n + (l.iterations ?? 0), 0);
  const dropped = load.reduce((n, l) => n + (l.dropped ?? 0), 0);
  return { iterations, dropped, share: dropped / (iterations + dropped) };
};

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-drops-"));
  for (const seed of [1, 2, 3]) files[`a${seed}`] = { requests: samples(seed, 0), load: loadCounters(0) };
  // B, 20 ms slower: b1 dropped 10 of 2,010 planned (0.5%, within the tolerance), b2 100 of 2,100 (4.8%, over it), b3 none.
  files.b1 = { requests: samples(1, 20), load: loadCounters(10) };
  files.b2 = { requests: samples(2, 20), load: loadCounters(100) };
  files.b3 = { requests: samples(3, 20), load: loadCounters(0) };
  for (const [name, f] of Object.entries(files))
    ids[name] = await importK6Requests(dir, `drops-${name}`, f.requests, { t0: T0, load: f.load });
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await stack?.close();
});

const storedRun = async (name: string) => {
  const run = await stack.db.run.findUniqueOrThrow({ where: { id: ids[name]! }, select: { summary: true, flags: true } });
  return { summary: runSummarySchema.parse(run.summary), flags: readFlags(run.flags) };
};
const okP95 = (name: string) =>
  exact(
    files[name]!.requests.filter((r) => r.ok).map((r) => r.ms),
    0.95,
  );
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe("dropped iterations of imported k6 files", () => {
  it("keeps the file's iterations and dropped iterations as the summary's load totals", async () => {
    for (const name of ["a1", "b1", "b2"]) {
      const { summary } = await storedRun(name);
      const w = written(name);
      expect(summary.load?.iterations).toBe(w.iterations);
      expect(summary.load?.droppedIterations).toBe(w.dropped);
    }
    expect(written("b1")).toMatchObject({ iterations: 2000, dropped: 10 });
    expect(written("b2")).toMatchObject({ iterations: 2000, dropped: 100 });
  });

  it("stores the dropped-iterations flag with its share on the imported run, and none without drops", async () => {
    const b1 = await storedRun("b1");
    const flag = b1.flags.find((f) => f.code === "dropped-iterations")!;
    expect(flag.share).toBeCloseTo(written("b1").share, 12);
    expect(flag.message).toMatch(/^10 of 2,010 iterations dropped \(0\.50%\).*within the 1% tolerance/);
    const b2 = await storedRun("b2");
    expect(b2.flags.find((f) => f.code === "dropped-iterations")!.message).toMatch(
      /^100 of 2,100 iterations dropped \(4\.76%\).*over the 1% tolerance/,
    );
    expect((await storedRun("a1")).flags).toEqual([]);
    expect((await storedRun("b3")).flags).toEqual([]);
    // The same warning a live run's timeline gets.
    const events = await stack.db.runEvent.findMany({ where: { runId: ids.b2! }, select: { level: true, message: true } });
    expect(events).toContainEqual({ level: "warn", message: expect.stringMatching(/^100 of 2,100 iterations dropped/) });
  });

  it("judges a run whose drop share is within the tolerance and leaves out one over it, saying its share", async () => {
    expect(written("b1").share).toBeLessThanOrEqual(DROPPED_ITERATIONS_TOLERANCE);
    expect(written("b2").share).toBeGreaterThan(DROPPED_ITERATIONS_TOLERANCE);
    const view = await stack.scope.compare([
      { label: "A", runIds: [ids.a1!, ids.a2!, ids.a3!] },
      { label: "B", runIds: [ids.b1!, ids.b2!, ids.b3!] },
    ]);
    expect(view.verdictExclusions.excluded).toHaveLength(1);
    const [out] = view.verdictExclusions.excluded;
    expect(out).toMatchObject({ group: "B", runId: ids.b2!, flags: ["dropped-iterations"] });
    expect(out!.dropShare).toBeCloseTo(written("b2").share, 12);
    const p95 = view.verdicts.find((v) => v.metric === "p95")!;
    expect(p95.samples).toEqual([3, 2]);
    // B's mean p95 over the judged runs b1 and b3 (b1 with its tolerated drops is one of them).
    const a = mean(["a1", "a2", "a3"].map(okP95));
    const b = mean(["b1", "b3"].map(okP95));
    expect(Math.abs(p95.estimate! - (b - a))).toBeLessThan(0.01 * b);
    // The compared runs carry their load totals, as the run page and the comparison show them.
    const b1 = view.groups[1]!.runs.find((r) => r.id === ids.b1)!;
    expect(b1.summary?.load).toMatchObject({ iterations: 2000, droppedIterations: 10 });
  });
});
