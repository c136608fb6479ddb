import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planRunOrder, studyInput, type StudyInputDraft } from "@opsbench/core";
import { loadStudyView, type StudyView } from "@opsbench/db";
import { createStudyQueue, startRun, startStudy } from "@opsbench/jobs";
import { openTestStack, shortRamp, taewaTarget, waitForFinal, testRedisUrl } from "../../../tests/helpers";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let studyQueue: ReturnType<typeof createStudyQueue>;
beforeAll(async () => {
  stack = await openTestStack();
  studyQueue = createStudyQueue(testRedisUrl());
});
afterAll(async () => {
  await studyQueue.close();
  await stack.close();
});

const FINAL = ["SUCCEEDED", "FAILED", "ABORTED"];

async function waitForStudy(id: string, timeoutMs = 400_000): Promise<StudyView> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const view = await loadStudyView(stack.db, id, { merged: false });
    if (FINAL.includes(view.status) && view.runs.every((r) => FINAL.includes(r.status))) return loadStudyView(stack.db, id);
    if (Date.now() > until) throw new Error(`study ${id} still ${view.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Student t quantile for 2 degrees of freedom in closed form: (2p - 1) / sqrt(2p(1 - p)). */
const t2 = (p: number) => (2 * p - 1) / Math.sqrt(2 * p * (1 - p));

describe("studies (real worker, real k6, local-service)", () => {
  it("runs 2 targets x 2 workloads x 3 repetitions interleaved, one run at a time, and shows every cell with its 95% CI", async () => {
    // A seed whose three rounds all come out in different orders (the planner is pure: checked here, before running).
    const seed = 7;
    const rounds = (plan: Array<{ round: number | null; cell: number }>) =>
      [1, 2, 3].map((r) =>
        plan
          .filter((p) => p.round === r)
          .map((p) => p.cell)
          .join(","),
      );
    expect(new Set(rounds(planRunOrder({ cells: 4, repetitions: 3, order: "interleaved-random", seed }))).size).toBe(3);

    const draft: StudyInputDraft = {
      name: "two by two",
      targets: [taewaTarget("study-one", { replicas: 1 }), taewaTarget("study-two", { replicas: 2 })],
      workloads: [
        shortRamp("study-light", { vus: 2, holdSeconds: 1, path: "/?n=500" }),
        shortRamp("study-heavy", { vus: 2, holdSeconds: 2 }),
      ],
      repetitions: 3,
      order: "interleaved-random",
      seed,
      cooldownSeconds: 1,
    };
    const { study, runs } = await startStudy(stack.scope, studyQueue, studyInput.parse(draft));
    expect(runs).toHaveLength(12);
    expect(study.seed).toBe(seed);

    // A single run asked for meanwhile waits for the machine: it never overlaps a study run.
    const single = await startRun(stack.scope, stack.queue, { targetName: "study-one", workloadName: "study-light" });

    const view = await waitForStudy(study.id);
    const singleView = await waitForFinal(stack.db, single.id);
    expect(singleView.status).toBe("SUCCEEDED");
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.runs.map((r) => r.status)).toEqual(Array(12).fill("SUCCEEDED"));

    // The recorded order: every round runs every cell once, the rounds differ, and it replays from the seed.
    const recorded = [1, 2, 3].map((round) =>
      view.runs
        .filter((r) => r.round === round)
        .sort((a, b) => a.position! - b.position!)
        .map((r) => r.cell),
    );
    for (const cells of recorded) expect([...cells].sort()).toEqual([0, 1, 2, 3]);
    expect(new Set(recorded.map((c) => c.join(","))).size).toBe(3);
    expect(recorded.flat()).toEqual(planRunOrder({ cells: 4, repetitions: 3, order: "interleaved-random", seed }).map((p) => p.cell));

    // Executed in that order, one at a time, with at least the cool-down between runs.
    const rows = await stack.db.run.findMany({ where: { studyId: study.id }, orderBy: { position: "asc" } });
    for (let i = 1; i < rows.length; i++) {
      expect(rows[i]!.startedAt!.getTime()).toBeGreaterThanOrEqual(rows[i - 1]!.finishedAt!.getTime() + 1000);
    }
    const s = await stack.db.run.findUniqueOrThrow({ where: { id: single.id } });
    for (const r of rows) {
      const overlaps = s.startedAt! < r.finishedAt! && r.startedAt! < s.finishedAt!;
      expect(overlaps, `single run overlaps study run ${r.position}`).toBe(false);
    }

    // Every cell: its three runs, the spread across them, and the merged result.
    expect(view.cells.map((c) => `${c.target.name} x ${c.workload.name}`)).toEqual([
      "study-one x study-light",
      "study-one x study-heavy",
      "study-two x study-light",
      "study-two x study-heavy",
    ]);
    for (const cell of view.cells) {
      expect(cell.runs.map((r) => r.repetition)).toEqual([1, 2, 3]);
      expect(cell.runs.map((r) => r.round)).toEqual([1, 2, 3]);
      expect(cell.flags).toEqual([]);
      for (const r of cell.runs) expect(r.flags.map((f) => f.code)).not.toContain("too-few-repetitions");
      // The CI, against an independent computation from the runs' own figures: req/s and p95 are positive, so the
      // t-interval of their logs, exp'd (docs/studies.md, "Intervals").
      for (const metric of ["rps", "p95"] as const) {
        const xs = cell.runs.map((r) => r.result![metric]);
        const m = (xs[0]! + xs[1]! + xs[2]!) / 3;
        const sd = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / 2);
        const logs = xs.map(Math.log);
        const lm = (logs[0]! + logs[1]! + logs[2]!) / 3;
        const half = (t2(0.975) * Math.sqrt(logs.reduce((a, x) => a + (x - lm) ** 2, 0) / 2)) / Math.sqrt(3);
        const st = cell.stats[metric];
        expect(st.n).toBe(3);
        expect(st.mean).toBeCloseTo(m, 6);
        expect(st.sd).toBeCloseTo(sd, 6);
        expect(st.interval!.kind).toBe("t-log");
        expect(st.ci95!.low).toBeCloseTo(Math.exp(lm - half), 6);
        expect(st.ci95!.high).toBeCloseTo(Math.exp(lm + half), 6);
      }
      // Merged histograms count every request k6 itself counted in the three runs.
      const k6Counts = rows
        .filter((r) => cell.runs.some((x) => x.id === r.id))
        .map((r) => (r.k6Summary as { metrics: { http_reqs: { count: number } } }).metrics.http_reqs.count);
      expect(cell.merged!.requests).toBe(k6Counts.reduce((a, b) => a + b, 0));
      expect(cell.merged!.requests).toBeGreaterThan(0);
      expect(cell.merged!.latencyMs.p95).toBeGreaterThan(0);
    }
    expect(view.progress).toMatchObject({ total: 12, finished: 12, succeeded: 12, etaSeconds: null });
  });

  it("aborts mid-study: the run under way is stopped and torn down, the runs not started are ABORTED", async () => {
    const draft: StudyInputDraft = {
      name: "to abort",
      targets: [taewaTarget("study-abort-t", { replicas: 1 })],
      workloads: [shortRamp("study-abort-w", { vus: 1, holdSeconds: 20 })],
      repetitions: 3,
      order: "sequential",
      cooldownSeconds: 0,
    };
    const { study } = await startStudy(stack.scope, studyQueue, studyInput.parse(draft));
    // Wait until the first run's load is under way.
    const until = Date.now() + 120_000;
    for (;;) {
      const r = await stack.db.run.findFirstOrThrow({ where: { studyId: study.id, position: 1 } });
      if (r.status === "RUNNING" && (await stack.db.resultSecond.count({ where: { runId: r.id } })) > 0) break;
      if (FINAL.includes(r.status) || Date.now() > until) throw new Error(`first run never got under way (${r.status})`);
      await new Promise((res) => setTimeout(res, 300));
    }
    const aborted = await stack.scope.studies.abort(study.id);
    expect(aborted).toEqual({ aborted: true, status: "ABORTED" });

    const view = await waitForStudy(study.id, 120_000);
    expect(view.status).toBe("ABORTED");
    expect(view.runs.map((r) => r.status)).toEqual(["ABORTED", "ABORTED", "ABORTED"]);
    expect(view.runs[0]!.startedAt).not.toBeNull();
    expect(view.runs.slice(1).map((r) => r.startedAt)).toEqual([null, null]);
    const first = await stack.db.run.findFirstOrThrow({ where: { studyId: study.id, position: 1 }, include: { steps: true } });
    // Stopped during its load (through its AbortSignal), and torn down.
    expect(first.error).toMatch(/aborted during load/);
    // The provider's teardown checks that no process of the target survived.
    expect(first.steps.find((s) => s.name === "TEARDOWN")?.status).toBe("SUCCEEDED");
    // Aborting again changes nothing.
    expect(await stack.scope.studies.abort(study.id)).toEqual({ aborted: false, status: "ABORTED" });
  });
});
