// Issue 36's series and trend, the pure parts: the list cursors, series keys, a single run's interval of each metric
// from its own seconds, a run's trend point, and the changes a trend marks with their commit range and sides.
import { describe, expect, it } from "vitest";
import {
  allSeriesChanges,
  byNameCursorSchema,
  encodePageCursor,
  newestFirstCursorSchema,
  pageOf,
  priceRun,
  runPointMetrics,
  runRollup,
  runValueInterval,
  seededRandom,
  seriesKeyOfRun,
  seriesKeySchema,
  seriesKeyText,
  summarize,
  windowsOfRollup,
  type RunCost,
} from "../src";
import { resultCell } from "./result-cell";

const UUID = "3f2504e0-4f89-11d3-9a0c-0305e82c3301";

describe("page cursors", () => {
  it("read back the key they were made of, and refuse anything else naming what a cursor is", () => {
    const at = "2026-11-29T18:00:00.123Z";
    expect(newestFirstCursorSchema.parse(encodePageCursor({ at, key: UUID }))).toEqual({ at, key: UUID });
    expect(byNameCursorSchema.parse(encodePageCursor({ key: "Ünïcode-name" }))).toEqual({ key: "Ünïcode-name" });
    for (const bad of ["nope", encodePageCursor({ key: "x" }), encodePageCursor({ at, key: "not-a-uuid" }), "e30", "!!"]) {
      const r = newestFirstCursorSchema.safeParse(bad);
      expect(r.success, bad).toBe(false);
      if (!r.success) expect(r.error.issues[0]?.message).toContain("not a cursor this list gave");
    }
    expect(byNameCursorSchema.safeParse(encodePageCursor({ key: "a\0b" })).success).toBe(false);
    // A time-ordered cursor is no by-name cursor.
    expect(byNameCursorSchema.safeParse(encodePageCursor({ at, key: UUID })).success).toBe(false);
  });

  it("give a next cursor only when a row beyond the page was read", () => {
    const rows = [1, 2, 3].map((n) => ({ n }));
    const full = pageOf(rows, 2, (r) => ({ key: String(r.n) }));
    expect(full.items).toEqual([{ n: 1 }, { n: 2 }]);
    expect(byNameCursorSchema.parse(full.nextCursor)).toEqual({ key: "2" });
    expect(pageOf(rows.slice(0, 2), 2, (r) => ({ key: String(r.n) })).nextCursor).toBeNull();
  });
});

describe("series keys", () => {
  it("are a series name or <target>~<workload>, and read back as such", () => {
    expect(seriesKeySchema.parse("checkout")).toEqual({ kind: "named", name: "checkout" });
    expect(seriesKeySchema.parse("api~ramp")).toEqual({ kind: "target-workload", target: "api", workload: "ramp" });
    expect(seriesKeyText({ kind: "target-workload", target: "api", workload: "ramp" })).toBe("api~ramp");
    for (const bad of ["a~b~c", "Upper", "", "a~", "~b", "has space"]) expect(seriesKeySchema.safeParse(bad).success, bad).toBe(false);
  });

  it("place a run by its series name first, else by its target and workload, else nowhere", () => {
    const t = { name: "api" };
    const w = { name: "ramp" };
    expect(seriesKeyOfRun({ series: "nightly", target: t, workload: w })).toEqual({ kind: "named", name: "nightly" });
    expect(seriesKeyOfRun({ series: null, target: t, workload: w })).toEqual({ kind: "target-workload", target: "api", workload: "ramp" });
    expect(seriesKeyOfRun({ series: null, target: null, workload: null })).toBeNull();
  });
});

describe("a single run's interval from its own seconds", () => {
  it("of a mean: brackets it, about 1.96 standard errors each side for independent seconds", () => {
    const rand = seededRandom(7);
    const values = Array.from({ length: 400 }, () => 100 + (rand() - 0.5) * 20); // sd 20 / sqrt(12) = 5.77
    const i = runValueInterval({ kind: "seconds", values });
    if (typeof i === "string") throw new Error(i);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    expect(i.low).toBeLessThan(mean);
    expect(i.high).toBeGreaterThan(mean);
    const se = 20 / Math.sqrt(12) / Math.sqrt(400);
    expect((i.high - i.low) / 2 / se).toBeGreaterThan(1.96 * 0.7);
    expect((i.high - i.low) / 2 / se).toBeLessThan(1.96 * 1.4);
  });

  it("is refused, with the reason, for a run too short to judge, and a share's stays within 0..100%", () => {
    expect(runValueInterval({ kind: "seconds", values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] })).toMatch(/at least 30 s/);
    const share = runValueInterval({
      kind: "share-seconds",
      numerators: Array.from({ length: 60 }, (_, s) => (s === 3 ? 1 : 0)),
      denominators: Array.from({ length: 60 }, () => 50),
      scale: 100,
    });
    if (typeof share === "string") throw new Error(share);
    expect(share.low).toBe(0);
    expect(share.high).toBeGreaterThan(1 / 3000);
    expect(share.high).toBeLessThan(100);
  });
});

/** A run of `seconds` seconds, 16 to 24 requests a second with latencies around `ms` (and `failing` failed ones a second). */
function run(ms: number, seconds = 60, failing = 0, seed = 1) {
  const rand = seededRandom(seed);
  const cells = Array.from({ length: seconds }, (_, s) =>
    resultCell(
      s,
      Array.from({ length: 16 + Math.floor(rand() * 9) }, () => ms * (0.8 + 0.4 * rand())),
    ),
  );
  const failed = failing ? Array.from({ length: seconds }, (_, s) => resultCell(s, Array(failing).fill(ms / 10), "5xx", failing)) : [];
  const all = [...cells, ...failed];
  const rollup = runRollup(all, new Date(1_700_000_000_000), seconds);
  const summary = summarize(all, seconds);
  return { summary, windows: windowsOfRollup(rollup.windows), whole: rollup.cells[0], above: rollup.windows.above };
}

describe("a run's trend point", () => {
  it("has each metric's value as its summary gives it, inside an interval from its seconds", () => {
    const r = run(100, 60, 1);
    const p = runPointMetrics(r);
    expect(p.latency.metric).toBe("p95");
    expect(p.latency.value).toBe(r.summary.successLatencyMs?.p95);
    for (const m of [p.latency, p.throughput, p.failureShare]) {
      expect(m.note, JSON.stringify(m)).toBeNull();
      expect(m.low!).toBeLessThanOrEqual(m.value!);
      expect(m.high!).toBeGreaterThanOrEqual(m.value!);
      expect(m.high!).toBeGreaterThan(m.low!);
    }
    const ok = r.summary.byClass["2xx"]!;
    expect(p.throughput.value).toBeCloseTo(ok / 60, 3);
    expect(p.failureShare.value).toBeCloseTo((60 / r.summary.requests) * 100, 3);
    expect(runPointMetrics(r, "p99").latency.value).toBe(r.summary.successLatencyMs?.p99);
    expect(() => runPointMetrics(r, "req/s")).toThrow(/one of: p50, p95, p99/);
  });

  it("says why it has no interval (a short run, no cost) rather than making one up; a fixed price's follows the throughput's", () => {
    const short = runPointMetrics(run(100, 12));
    expect(short.latency.value).not.toBeNull();
    expect(short.latency.low).toBeNull();
    expect(short.latency.note).toMatch(/30 s/);
    expect(short.costPerThousand).toMatchObject({ value: null, low: null, note: expect.stringMatching(/not priced/) });

    const r = run(100, 60);
    const facts = { durationSeconds: 60, requests: r.summary.requests, failures: 0, meanLatencySeconds: 0.1, replicas: [] };
    const cost = (model: object): RunCost => {
      const priced = priceRun(model, facts);
      if (!priced.ok) throw new Error(priced.error);
      return priced.cost;
    };
    const reservedCost = cost({ kind: "reserved", unit: "EUR-cent", pricePerNodeSecond: 0.0087959 });
    const reserved = runPointMetrics({ ...r, summary: { ...r.summary, cost: reservedCost } });
    const t = reserved.throughput;
    const per1k = reservedCost.perThousandSuccessfulRequests!;
    expect(reserved.costPerThousand.value).toBe(per1k);
    expect(reserved.costPerThousand.low).toBeCloseTo((per1k * t.value!) / t.high!, 10);
    expect(reserved.costPerThousand.high).toBeCloseTo((per1k * t.value!) / t.low!, 10);
    const perUseCost = cost({ kind: "pay-per-use", unit: "EUR-cent", pricePerRequest: 2.568e-5 });
    const perUse = runPointMetrics({ ...r, summary: { ...r.summary, cost: perUseCost } });
    expect(perUse.costPerThousand).toMatchObject({
      value: perUseCost.perThousandSuccessfulRequests,
      low: null,
      note: expect.stringMatching(/moves with the requests/),
    });
  });
});

describe("the changes a trend marks", () => {
  const sha = (i: number) => `c${String(i).padStart(2, "0")}0000000`;
  /** Twelve runs, c1..c12, a 10% latency step at c8; run c4 invalid (and far off: it must not count). */
  const points = Array.from({ length: 12 }, (_, k) => {
    const i = k + 1;
    const ms = i === 4 ? 300 : i >= 8 ? 110 : 100;
    return { id: `run-${i}`, commit: sha(i), valid: i !== 4, ...runPointMetrics(run(ms, 60, 0, i)) };
  });

  it("finds the 10% step at c8 in latency, with its commit range c7..c8 and the valid runs either side", () => {
    const changes = allSeriesChanges(points).filter((c) => c.metric === "latency");
    expect(changes).toHaveLength(1);
    const [c] = changes;
    expect(c!.index).toBe(7);
    expect(c!.runId).toBe("run-8");
    expect(c!.relative).toBeGreaterThan(0.05);
    expect(c!.relative).toBeLessThan(0.15);
    expect(c!.commits).toEqual({ lastBefore: sha(7), firstAfter: sha(8), sameCommit: false });
    expect(c!.beforeRunIds).toEqual(["run-2", "run-3", "run-5", "run-6", "run-7"]);
    expect(c!.afterRunIds).toEqual(["run-8", "run-9", "run-10", "run-11", "run-12"]);
    // Throughput did not move: no change there.
    expect(allSeriesChanges(points).filter((c) => c.metric === "throughput")).toEqual([]);
  });
});
