// Issue 10: the workspace's limits in the worker. A run whose workload went over a limit lowered after it was saved
// is refused as it starts (FAILED, the limit named, nothing deployed); and requests under more names than the
// "http series per run" limit fold into one "other" series, with the run flagged, every request still counted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WORKSPACE_LIMITS, HTTP_SERIES_FOLDED, OTHER_SERIES } from "@opsbench/core";
import { startRun } from "@opsbench/jobs";
import { openTestStack, shortRamp, taewaTarget, waitForFinal } from "../../../tests/helpers";

let stack: Awaited<ReturnType<typeof openTestStack>>;
beforeAll(async () => {
  stack = await openTestStack();
  await stack.scope.targets.put(taewaTarget("lim-taewa", { replicas: 1 }));
});
afterAll(() => stack.close());

const ITERATIONS = 60;
// Each request has a URL of its own, so k6 names each one apart.
const UNIQUE_URLS = `
import http from "k6/http";
export const options = { scenarios: { main: { executor: "shared-iterations", vus: 2, iterations: ${ITERATIONS}, maxDuration: "20s" } } };
export default function () { http.get(\`\${__ENV.OPSBENCH_BASE_URL}/?n=10&u=\${__VU}-\${__ITER}\`); }
`;

describe("workspace limits in the worker", () => {
  it("refuses a run whose workload a lowered limit no longer allows, before deploying anything", async () => {
    await stack.scope.workloads.put(shortRamp("lim-five-vus", { vus: 5, holdSeconds: 1 }));
    await stack.scope.limits.set({ maxVUs: 2 });
    try {
      const run = await startRun(stack.scope, stack.queue, { targetName: "lim-taewa", workloadName: "lim-five-vus" });
      const view = await waitForFinal(stack.db, run.id);
      expect(view.status).toBe("FAILED");
      expect(view.error).toContain("maxVUs");
      expect(view.error).toContain("uses up to 5 VUs");
      // Nothing was deployed: no PROVISION step, no results.
      expect(view.steps.map((s) => s.name)).not.toContain("PROVISION");
      expect(await stack.db.resultSecond.count({ where: { runId: run.id } })).toBe(0);
    } finally {
      await stack.scope.limits.set({ maxVUs: DEFAULT_WORKSPACE_LIMITS.maxVUs });
    }
  });

  it("folds request names beyond maxHttpSeries into one 'other' series and flags the run", async () => {
    await stack.scope.workloads.put({ name: "lim-unique-urls", spec: { kind: "script", source: UNIQUE_URLS } });
    await stack.scope.limits.set({ maxHttpSeries: 5 });
    const run = await startRun(stack.scope, stack.queue, { targetName: "lim-taewa", workloadName: "lim-unique-urls" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.status, view.error ?? "").toBe("SUCCEEDED");
    const rows = await stack.db.resultSecond.findMany({ where: { runId: run.id }, select: { name: true, requests: true } });
    const names = new Set(rows.map((r) => r.name));
    expect(names.size).toBe(6);
    expect(names).toContain(OTHER_SERIES);
    // Every request is still counted, in the rows and in the summary.
    expect(rows.reduce((n, r) => n + r.requests, 0)).toBe(ITERATIONS);
    expect(view.summary?.requests).toBe(ITERATIONS);
    const other = rows.filter((r) => r.name === OTHER_SERIES).reduce((n, r) => n + r.requests, 0);
    expect(other).toBe(ITERATIONS - 5);
    const flag = view.flags.find((f) => f.code === HTTP_SERIES_FOLDED);
    expect(flag?.message).toContain(`${ITERATIONS - 5} requests under ${ITERATIONS - 5} request names`);
    expect(flag?.message).toContain("maxHttpSeries (5)");
  });
});
