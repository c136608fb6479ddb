// Bring your own k6 script: validated by the worker (k6 inspect) through the
// queue before anything is saved, run by the unchanged pipeline, and its checks
// and custom metrics stored per second and shown in the run view.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workloadSpec } from "@opsbench/core";
import { createScriptValidator, startRun, type ScriptValidator } from "@opsbench/jobs";
import { openTestStack, taewaTarget, waitForFinal, testRedisUrl } from "../../../tests/helpers";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let validator: ScriptValidator;
beforeAll(async () => {
  stack = await openTestStack();
  validator = createScriptValidator(testRedisUrl());
});
afterAll(async () => {
  await validator.close();
  await stack.close();
});

const SCRIPT = `
import http from "k6/http";
import { check } from "k6";
import { Counter, Trend } from "k6/metrics";

const wait = new Trend("taewa_wait", true);
const calls = new Counter("taewa_calls");

export const options = {
  scenarios: { main: { executor: "shared-iterations", vus: 2, iterations: 60, maxDuration: "60s" } },
  summaryTrendStats: ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)"],
};

export default function () {
  const res = http.get(__ENV.OPSBENCH_BASE_URL + "/?n=500", { tags: { name: "taewa" } });
  wait.add(res.timings.waiting);
  calls.add(2);
  check(res, {
    "status is 200": (r) => r.status === 200,
    "body is 44 characters": (r) => r.body.length === 44,
    "never true": () => false,
  });
}
`;

describe("user k6 scripts", () => {
  it("refuses a script with a syntax error with the engine's message; accepts a valid one with its options", async () => {
    const bad = await validator.validateScript('import http from "k6/http";\nexport default function () {\n  http.get("x" ;\n}\n');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toBe('script.js:3:16: Expected ")" but found ";"');

    const noDefault = await validator.validateScript("export const options = { vus: 1 };\n");
    expect(!noDefault.ok && noDefault.message).toMatch(/the script has no default function to run/);

    const badOptions = await validator.validateScript(
      'export const options = { scenarios: { a: { executor: "nope" } } };\nexport default function () {}\n',
    );
    expect(!badOptions.ok && badOptions.message).toMatch(/scenario "a": unknown executor "nope"/);

    const good = await validator.validateScript(SCRIPT);
    expect(good).toMatchObject({
      ok: true,
      maxVUs: 2,
      options: { scenarios: { main: { executor: "shared-iterations", vus: 2, iterations: 60 } } },
    });
  });

  it("runs a valid script through the worker; its checks and custom metrics come back in the run view, equal to k6's own", async () => {
    await stack.scope.targets.put(taewaTarget("script-taewa"));
    await stack.scope.workloads.put({ name: "own-script", spec: workloadSpec.parse({ kind: "script", source: SCRIPT }) });
    const run = await startRun(stack.scope, stack.queue, { targetName: "script-taewa", workloadName: "own-script" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.summary!.requests).toBe(60);

    const k6 = (await stack.db.run.findUniqueOrThrow({ where: { id: run.id } })).k6Summary as {
      metrics: Record<string, Record<string, number>>;
      root_group: { checks: Record<string, { passes: number; fails: number }> };
    };
    const checks = Object.fromEntries(view.checks.map((c) => [c.name, c]));
    expect(Object.keys(checks).sort()).toEqual(["body is 44 characters", "never true", "status is 200"]);
    for (const [name, c] of Object.entries(k6.root_group.checks)) {
      expect([checks[name]!.passes, checks[name]!.fails], name).toEqual([c.passes, c.fails]);
    }
    expect(checks["status is 200"]).toMatchObject({ passes: 60, fails: 0, passRate: 100 });
    expect(checks["never true"]).toMatchObject({ passes: 0, fails: 60, passRate: 0 });
    expect(checks["status is 200"]!.points.reduce((a, p) => a + p.passes, 0)).toBe(60);

    const metrics = Object.fromEntries(view.customMetrics.map((m) => [m.name, m]));
    expect(Object.keys(metrics).sort()).toEqual(["taewa_calls", "taewa_wait"]);
    expect(metrics.taewa_calls).toMatchObject({ kind: "counter", total: 120 });
    expect(k6.metrics.taewa_calls!.count).toBe(120);
    const wait = metrics.taewa_wait as Extract<(typeof view.customMetrics)[number], { kind: "trend" }>;
    expect(wait).toMatchObject({ kind: "trend", unit: "ms", count: 60 });
    const theirs = k6.metrics.taewa_wait!;
    expect(wait.avg).toBeCloseTo(theirs.avg!, 3);
    expect(wait.min).toBeCloseTo(theirs.min!, 3);
    expect(wait.max).toBeCloseTo(theirs.max!, 3);
    for (const [ours, k] of [
      [wait.med, theirs.med],
      [wait.p90, theirs["p(90)"]],
      [wait.p95, theirs["p(95)"]],
    ] as Array<[number, number]>) {
      expect(Math.abs(ours - k) / k).toBeLessThanOrEqual(0.01);
    }
    // Stored per second: the rows add up to the totals.
    const rows = await stack.db.metricSecond.findMany({ where: { runId: run.id, kind: "counter" } });
    expect(rows.reduce((a, r) => a + r.sum, 0)).toBe(120);
  });
});
