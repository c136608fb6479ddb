// Series and cursor pages through the workspace scope (issue 36): a named series of imported runs with provenance
// (a 10% latency step at a known commit) answers its points, each with its interval, the invalid run apart and the
// change at its commit; a target x workload series forms by itself; the lists page through more rows than one page
// holds, every row once, in their order; another workspace sees none of it.
import { encodePageCursor, seriesKeySchema } from "@opsbench/core";
import { NotFoundError, workspaceScope } from "@opsbench/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStack, shortRamp, taewaTarget } from "../../../tests/helpers";
import { importSeriesRun, seriesCommit } from "../../../tests/series-runs";

let stack: Awaited<ReturnType<typeof openTestStack>>;
const sha = seriesCommit;
const importedIds: string[] = [];

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  // c1..c12, p95 up 10% from c8 on; c4's run dropped iterations (invalid) and is far off, which must not count.
  for (let i = 1; i <= 12; i++)
    importedIds.push(await importSeriesRun(stack.scope, "checkout", i, i === 4 ? 300 : i >= 8 ? 110 : 100, i === 4));
});
afterAll(() => stack?.close());

describe("a named series of imported runs", () => {
  it("answers its 12 points oldest first, each with its provenance and an interval around its value", async () => {
    const view = await stack.scope.series.points(seriesKeySchema.parse("checkout"));
    expect(view.series).toMatchObject({ key: "checkout", kind: "named", title: "checkout", target: null });
    expect(view.metric).toBe("p95");
    expect(view.points.map((p) => p.id)).toEqual(importedIds);
    expect(view.points.map((p) => p.commit)).toEqual(importedIds.map((_, k) => sha(k + 1)));
    for (const p of view.points) {
      for (const m of [p.latency, p.throughput, p.failureShare]) {
        expect(m.note, `${p.name}: ${JSON.stringify(m)}`).toBeNull();
        expect(m.low!).toBeLessThanOrEqual(m.value!);
        expect(m.high!).toBeGreaterThanOrEqual(m.value!);
      }
      expect(p.costPerThousand).toMatchObject({ value: null, low: null, note: expect.stringMatching(/not priced/) });
    }
    // The runs' p95 is its summary's, and the step shows in the values: every run from c8 on above every one before.
    const p95 = view.points.map((p) => p.latency.value!);
    const before = p95.filter((_, k) => k < 7 && k !== 3);
    expect(Math.min(...p95.slice(7))).toBeGreaterThan(Math.max(...before));
  });

  it("draws the run that dropped iterations apart (invalid, its flag named) and finds the 10% step at c8, c7..c8", async () => {
    const view = await stack.scope.series.points(seriesKeySchema.parse("checkout"));
    expect(view.points.filter((p) => !p.valid).map((p) => p.commit)).toEqual([sha(4)]);
    expect(view.points[3]!.flags.map((f) => f.code)).toContain("dropped-iterations");
    const latency = view.changes.filter((c) => c.metric === "latency");
    expect(latency).toHaveLength(1);
    expect(latency[0]).toMatchObject({
      index: 7,
      runId: importedIds[7],
      commits: { lastBefore: sha(7), firstAfter: sha(8), sameCommit: false },
    });
    expect(latency[0]!.relative).toBeGreaterThan(0.05);
    expect(latency[0]!.relative).toBeLessThan(0.15);
    // Its comparison's sides: valid runs only (c4 left out), the nearest five each side.
    expect(latency[0]!.beforeRunIds).toEqual([1, 2, 4, 5, 6].map((k) => importedIds[k]));
    expect(latency[0]!.afterRunIds).toEqual([7, 8, 9, 10, 11].map((k) => importedIds[k]));
    // The throughput did not move.
    expect(view.changes.filter((c) => c.metric === "throughput")).toEqual([]);
  });

  it("takes another latency metric, and a limit to the newest runs", async () => {
    const p99 = await stack.scope.series.points(seriesKeySchema.parse("checkout"), { metric: "p99", limit: 5 });
    expect(p99.metric).toBe("p99");
    expect(p99.truncated).toBe(true);
    expect(p99.points.map((p) => p.id)).toEqual(importedIds.slice(7));
    for (const p of p99.points) expect(p.latency.value).toBeGreaterThan(p.latency.low! - 1e-9);
  });
});

describe("series in the list", () => {
  it("lists the named series and a target x workload's, which its runs form without a name", async () => {
    await stack.scope.targets.put(taewaTarget("series-api", { replicas: 1 }));
    await stack.scope.workloads.put(shortRamp("series-ramp", { vus: 1, holdSeconds: 1 }));
    const a = await stack.scope.runs.create({ targetName: "series-api", workloadName: "series-ramp" });
    const named = await stack.scope.runs.create({
      targetName: "series-api",
      workloadName: "series-ramp",
      provenance: { series: "nightly" },
    });
    const { items } = await stack.scope.series.page({ limit: 200 });
    const byKey = new Map(items.map((s) => [s.key, s]));
    expect(byKey.get("checkout")).toMatchObject({ kind: "named", runs: 12, lastRun: { id: importedIds[11] } });
    expect(byKey.get("series-api~series-ramp")).toMatchObject({
      kind: "target-workload",
      title: "series-api × series-ramp",
      target: { name: "series-api", kind: "local-service" },
      workload: { name: "series-ramp" },
      runs: 1,
      lastRun: { id: a.id, status: "QUEUED" },
    });
    expect(byKey.get("nightly")).toMatchObject({ runs: 1, lastRun: { id: named.id } });
    // A series whose runs have not finished has no points yet, but it exists.
    expect((await stack.scope.series.points(seriesKeySchema.parse("series-api~series-ramp"))).points).toEqual([]);
    await expect(stack.scope.series.points(seriesKeySchema.parse("series-api~no-such"))).rejects.toBeInstanceOf(NotFoundError);
  });

  it("is none of another workspace's", async () => {
    const other = await stack.db.workspace.create({ data: { slug: `series-other-${Date.now()}`, name: "Other" } });
    const theirs = workspaceScope(stack.db, other.id);
    expect((await theirs.series.page()).items).toEqual([]);
    await expect(theirs.series.points(seriesKeySchema.parse("checkout"))).rejects.toBeInstanceOf(NotFoundError);
  });
});

/** Every page of a list, following nextCursor; each page no larger than asked. */
async function allPages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>, limit: number) {
  const rows: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const p = await page(cursor);
    expect(p.items.length).toBeLessThanOrEqual(limit);
    rows.push(...p.items);
    pages++;
    if (!p.nextCursor) return { rows, pages };
    cursor = p.nextCursor;
  }
}

describe("cursor pages", () => {
  it("page through more runs, studies, targets, workloads and series than one page holds, each once, in order", async () => {
    await stack.scope.workloads.put(shortRamp("page-ramp", { vus: 1, holdSeconds: 1 }));
    for (let i = 0; i < 60; i++) await stack.scope.targets.put(taewaTarget(`page-t${String(i).padStart(2, "0")}`, { replicas: 1 }));
    const target = await stack.scope.targets.byName("page-t00");
    const workload = await stack.scope.workloads.byName("page-ramp");
    for (let i = 0; i < 55; i++)
      await stack.scope.studies.createSingleCell({ name: `page-study-${i}`, targetId: target.id, workloadId: workload.id });
    // Named series enough for more than one page of 50.
    for (let i = 0; i < 55; i++)
      await stack.scope.runs.create({ targetName: "page-t00", workloadName: "page-ramp", provenance: { series: `page-s${i}` } });

    const decode = (c: string | undefined) => (c ? JSON.parse(Buffer.from(c, "base64url").toString("utf8")) : undefined);
    const runs = await allPages((c) => stack.scope.runs.page({ cursor: decode(c), limit: 50 }), 50);
    const allRuns = await stack.db.run.findMany({
      where: { workspaceId: stack.scope.workspaceId },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      select: { id: true },
    });
    expect(allRuns.length).toBeGreaterThan(120);
    expect(runs.rows.map((r) => r.id)).toEqual(allRuns.map((r) => r.id));
    expect(runs.pages).toBe(Math.ceil(allRuns.length / 50));

    const studies = await allPages((c) => stack.scope.studies.page({ cursor: decode(c), limit: 20 }), 20);
    expect(studies.rows.filter((s) => s.name.startsWith("page-study-"))).toHaveLength(55);
    expect(new Set(studies.rows.map((s) => s.id)).size).toBe(studies.rows.length);

    const targets = await allPages((c) => stack.scope.targets.page({ cursor: decode(c), limit: 50 }), 50);
    const names = targets.rows.map((t) => t.name);
    expect(names).toEqual((await stack.scope.targets.list()).map((t) => t.name));
    expect(names.filter((n) => n.startsWith("page-t"))).toHaveLength(60);
    const workloads = await allPages((c) => stack.scope.workloads.page({ cursor: decode(c), limit: 1 }), 1);
    expect(workloads.rows.map((w) => w.name)).toEqual((await stack.scope.workloads.list()).map((w) => w.name));

    const series = await allPages((c) => stack.scope.series.page({ cursor: decode(c), limit: 50 }), 50);
    const keys = series.rows.map((s) => s.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.filter((k) => k.startsWith("page-s"))).toHaveLength(55);
    // Newest last run first: the series made last comes first.
    expect(keys[0]).toBe("page-s54");

    // A cursor points past its row: a row added since does not shift later pages.
    const first = await stack.scope.runs.page({ limit: 10 });
    await stack.scope.runs.create({ targetName: "page-t00", workloadName: "page-ramp" });
    const second = await stack.scope.runs.page({ cursor: decode(first.nextCursor!), limit: 10 });
    expect(second.items[0]!.id).toBe(allRuns[10]!.id);
    expect(encodePageCursor({ at: first.items[9]!.createdAt.toISOString(), key: first.items[9]!.id })).toBe(first.nextCursor);
  });
});
