import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { studentTQuantile, VERDICT_VERSION } from "@opsbench/core";
import { resolveShareLink, workspaceScope } from "../src";
import { startRun } from "@opsbench/jobs";
import { openTestStack, shortRamp, taewaTarget, waitForFinal } from "../../../tests/helpers";

let stack: Awaited<ReturnType<typeof openTestStack>>;
const runsOf: Record<string, string[]> = { light: [], heavy: [] };

beforeAll(async () => {
  stack = await openTestStack();
  await stack.scope.targets.put(taewaTarget("cmp-taewa", { replicas: 1 }));
  await stack.scope.workloads.put(shortRamp("cmp-light", { holdSeconds: 3, vus: 2, path: "/?n=100" }));
  await stack.scope.workloads.put(shortRamp("cmp-heavy", { holdSeconds: 3, vus: 2, path: "/?n=400000" }));
  // Five a side. Welch's interval at n runs a side is about t(n-1) x SD / sqrt(n) wide: with three
  // (t = 4.3) a heavy side whose p95 swings by 40% between runs on a busy 2-core machine reached
  // zero in CI; with five (t = 2.8) it takes a swing of 80%.
  for (const rep of [1, 2, 3, 4, 5]) {
    for (const w of ["light", "heavy"]) {
      const run = await startRun(stack.scope, stack.queue, { targetName: "cmp-taewa", workloadName: `cmp-${w}` });
      expect((await waitForFinal(stack.db, run.id)).status, `repetition ${rep}`).toBe("SUCCEEDED");
      runsOf[w]!.push(run.id);
    }
  }
});
afterAll(() => stack?.close());

describe("comparison", () => {
  it("merges each group's runs, aligns series on load start, and gives verdicts whose intervals match Welch's t", async () => {
    const view = await stack.scope.compare([
      { label: "light", runIds: runsOf.light! },
      { label: "heavy", runIds: runsOf.heavy! },
    ]);
    const [light, heavy] = view.groups;
    for (const g of [light!, heavy!]) {
      expect(g.merged!.requests).toBe(g.runs.reduce((s, r) => s + r.summary!.requests, 0));
      expect(g.series[0]!.offsetSeconds).toBe(0);
      // Requests per bucket are the mean per run, never the sum of the runs.
      const perRun = g.merged!.requests / g.runs.length;
      expect(Math.abs(g.series.reduce((s, b) => s + b.requests, 0) - perRun) / perRun).toBeLessThan(0.15);
      // Maximum throughput: each run's own, then their mean.
      const maxima = g.runs.map((r) => r.summary!.maxThroughput!.rps);
      expect(g.merged!.maxThroughput!.rps).toBeCloseTo(maxima.reduce((a, b) => a + b, 0) / maxima.length, 1);
      expect(g.distribution.at(-1)!.cumulative).toBeCloseTo(1, 10);
      expect(g.infra.length).toBeGreaterThan(0);
    }
    const p95 = view.verdicts.find((v) => v.metric === "p95")!;
    expect(p95.basis).toBe("runs");
    expect(p95.method).toBe("welch-t");
    // Five runs a side: the standard error of the difference of means, with Welch-Satterthwaite's degrees of freedom
    // (computed here by hand: (va + vb)^2 / (va^2 / 4 + vb^2 / 4), va = s_a^2 / 5).
    const [pa, pb] = [light!, heavy!].map((g) => g.runs.map((r) => r.summary!.latencyMs.p95));
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    const varOfMean = (xs: number[]) => xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1) / xs.length;
    const [va, vb] = [varOfMean(pa!), varOfMean(pb!)];
    const df = (va + vb) ** 2 / (va ** 2 / 4 + vb ** 2 / 4);
    const d = mean(pb!) - mean(pa!);
    const half = studentTQuantile(0.975, df) * Math.sqrt(va + vb);
    expect(p95.df).toBeCloseTo(df, 9);
    expect(p95.estimate).toBeCloseTo(d, 9);
    expect(p95.low).toBeCloseTo(d - half, 9);
    expect(p95.high).toBeCloseTo(d + half, 9);
    // 4000x more work per request is slower beyond doubt.
    expect(heavy!.merged!.latencyMs.p95).toBeGreaterThan(light!.merged!.latencyMs.p95);
    // Whether five runs a side clear the +-5% margin around light's mean is the runs' to say: twice in a full suite
    // (fresh clones, one beside CPU hogs) the interval reached into it, the p95s of runs that other files' load lands
    // on spreading that wide. The verdict must say what this interval says.
    expect(p95.margin).toBe(0.05);
    const band = p95.margin * mean(pa!);
    const beyond = d - half > band || d + half < -band;
    expect(p95.significant).toBe(beyond);
    expect(p95.text).toMatch(beyond ? /^light is better on p95 beyond the margin/ : /^(inconclusive|equivalent) on p95: /);
  });

  it("judges single runs over their seconds (moving-block bootstrap, or no verdict); a single run against repetitions as one run value", async () => {
    const view = await stack.scope.compare([{ runIds: [runsOf.light![0]!] }, { runIds: [runsOf.heavy![0]!] }]);
    expect(view.verdicts.every((v) => v.basis === "seconds")).toBe(true);
    for (const v of view.verdicts) {
      expect(["moving-block-bootstrap", "none"]).toContain(v.method);
      expect(v.text).toMatch(/1 run a side|no verdict/);
    }
    // Never a run's seconds against run values: its one value against theirs, their spread standing for both.
    const mixed = await stack.scope.compare([{ runIds: runsOf.light! }, { runIds: [runsOf.heavy![0]!] }]);
    const one = mixed.verdicts.find((v) => v.metric === "p95")!;
    expect(one.basis).toBe("runs");
    expect(one.samples).toEqual([5, 1]);
    expect(one.method).toBe("single-run-t");
    expect(one.df).toBe(4);
  });

  it("refuses runs of another workspace", async () => {
    const other = await stack.db.workspace.create({ data: { slug: `other-${Date.now()}`, name: "Other" } });
    const otherScope = workspaceScope(stack.db, other.id);
    await expect(otherScope.compare([{ runIds: [runsOf.light![0]!] }])).rejects.toThrow(/not found/);
    await expect(otherScope.shares.create({ kind: "run", subject: { runIds: [runsOf.light![0]!] } })).rejects.toThrow(/not found/);
  });
});

describe("share links", () => {
  it("are unguessable, resolve to exactly their subject, and stop working when revoked", async () => {
    const a = await stack.scope.shares.create({
      kind: "comparison",
      subject: { groups: [{ runIds: runsOf.light! }, { runIds: runsOf.heavy! }] },
    });
    const b = await stack.scope.shares.create({ kind: "run", subject: { runIds: [runsOf.light![0]!] } });
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    const stored = await stack.db.shareLink.findUniqueOrThrow({ where: { id: a.id } });
    expect(JSON.stringify(stored)).not.toContain(a.token); // only the hash is kept
    // The verdict method the sharer saw, so the shared page can say when a later one decides its verdicts.
    expect(stored.verdictVersion).toBe(VERDICT_VERSION);
    const resolved = await resolveShareLink(stack.db, a.token);
    expect(resolved?.kind).toBe("comparison");
    expect(resolved?.subject.groups?.flatMap((g) => g.runIds).sort()).toEqual([...runsOf.light!, ...runsOf.heavy!].sort());
    expect(await resolveShareLink(stack.db, a.token.slice(0, -1) + (a.token.endsWith("A") ? "B" : "A"))).toBeNull();
    expect(await resolveShareLink(stack.db, "not a token")).toBeNull();
    await stack.scope.shares.revoke(a.id);
    expect(await resolveShareLink(stack.db, a.token)).toBeNull();
    await expect(stack.scope.shares.revoke(a.id)).rejects.toThrow(/not found/);
    expect(await resolveShareLink(stack.db, b.token)).not.toBeNull();
  });
});
