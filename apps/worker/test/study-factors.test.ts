// Replicas as a study factor (study 001 pinned 1/5/25/50 replicas per cell): each level makes a variant of every
// target, <target>.r<n>, run like any target through the real worker and k6; the cells carry their level; a kind
// that cannot pin replicas is refused naming the target, and nothing is written.
import { type StudyInputDraft, studyInput } from "@opsbench/core";
import { loadStudyTables, loadStudyView } from "@opsbench/db";
import { createStudyQueue, startStudy } from "@opsbench/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStack, shortRamp, taewaTarget, testRedisUrl } from "../../../tests/helpers";

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

describe("study factors: replicas", () => {
  it("a named target and an inline one at replicas 1 and 3: four cells, each run with its pinned replicas", async () => {
    await stack.scope.targets.put(
      taewaTarget("factor-named", { replicas: undefined, minReplicas: 1, maxReplicas: 2, autoscaler: { targetCpuPercent: 50 } }),
    );
    const draft: StudyInputDraft = {
      name: "replicas as a factor",
      targets: ["factor-named", taewaTarget("factor-inline", { replicas: 2 })],
      workloads: [shortRamp("factor-load", { vus: 2, holdSeconds: 1, path: "/?n=100" })],
      factors: { replicas: [1, 3] },
      repetitions: 1,
      order: "sequential",
      cooldownSeconds: 0,
    };
    const { study, runs, cells } = await startStudy(stack.scope, studyQueue, studyInput.parse(draft));
    expect(runs).toHaveLength(4);
    expect(cells.map((c) => [c.target, c.baseTarget, c.level])).toEqual([
      ["factor-named.r1", "factor-named", { replicas: 1 }],
      ["factor-named.r3", "factor-named", { replicas: 3 }],
      ["factor-inline.r1", "factor-inline", { replicas: 1 }],
      ["factor-inline.r3", "factor-inline", { replicas: 3 }],
    ]);
    // The variant keeps what the target had, replicas pinned (min/max and the autoscaler's range gone).
    const variant = await stack.scope.targets.byName("factor-named.r3");
    expect(variant.spec).toMatchObject({ app: "cpu-loop/node-http", replicas: 3, autoscaler: { targetCpuPercent: 50 } });
    expect(variant.spec).not.toHaveProperty("minReplicas");

    const until = Date.now() + 300_000;
    let view = await loadStudyView(stack.db, study.id, { merged: false });
    while (!(FINAL.includes(view.status) && view.runs.every((r) => FINAL.includes(r.status)))) {
      if (Date.now() > until) throw new Error(`study still ${view.status}`);
      await new Promise((r) => setTimeout(r, 500));
      view = await loadStudyView(stack.db, study.id, { merged: false });
    }
    expect(view.runs.map((r) => r.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
    for (const run of view.runs) {
      const points = await stack.db.infraPoint.findMany({ where: { runId: run.id }, select: { replicas: true } });
      const want = cells[run.cell!]!.level!.replicas!;
      expect(points.length, run.id).toBeGreaterThan(0);
      expect(Math.max(...points.map((p) => p.replicas)), cells[run.cell!]!.target).toBe(want);
    }
    // The scaling table: pinned replicas are there from the start (0 s to reach them), 1 vCPU each (no CPU limit or
    // request: a local replica is counted as 1), so throughput per vCPU is req/s over the replicas.
    const tables = await loadStudyTables(stack.db, study.id);
    for (const cell of tables.cells) {
      const n = Number(/\.r(\d+)$/.exec(cell.target)![1]);
      expect(cell.stats.maxReplicas.mean, cell.target).toBe(n);
      expect(cell.stats.scalingSeconds.mean, cell.target).toBe(0);
      expect(cell.stats.meanVcpus.mean, cell.target).toBeCloseTo(n, 6);
      expect(cell.stats.rpsPerVcpu.mean, cell.target).toBeCloseTo(cell.stats.rps.mean! / n, 6);
    }
  }, 400_000);

  it("refuses a kind that cannot pin replicas, and a level the kind's schema refuses, naming the target; nothing is written", async () => {
    const before = await stack.db.study.count();
    const lambda = {
      name: "factor-lambda",
      kind: "aws-lambda" as const,
      spec: { credential: "aws", region: "us-east-1", roleArn: "arn:aws:iam::123456789012:role/r" },
    };
    const base = { name: "refused", workloads: [shortRamp("factor-load2")], repetitions: 1, cooldownSeconds: 0 };
    await expect(
      startStudy(stack.scope, studyQueue, studyInput.parse({ ...base, targets: [lambda], factors: { replicas: [1, 5] } })),
    ).rejects.toThrow(/factor-lambda: a Lambda function has no replicas to pin/);
    const err: { issues?: Array<{ path: PropertyKey[]; message: string }> } = await startStudy(
      stack.scope,
      studyQueue,
      studyInput.parse({ ...base, targets: [taewaTarget("factor-big")], factors: { replicas: [64, 65] } }),
    ).then(
      () => ({}),
      (e: { issues?: Array<{ path: PropertyKey[]; message: string }> }) => e,
    );
    expect(err.issues?.map((i) => `${i.path.join(".")}: ${i.message}`)).toEqual([
      "targets.0.spec.replicas: factor-big: at r65: Too big: expected number to be <=64",
    ]);
    expect(await stack.db.study.count()).toBe(before);
    expect(await stack.db.target.count({ where: { name: { startsWith: "factor-big.r" } } })).toBe(0);
  });
});
