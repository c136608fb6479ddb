// k6 thresholds judged on the merged result of several generators (external runs): k6's expressions on the summed
// histograms and counts, tags that the output records, and what it cannot judge reported as failed with a reason.
import { describe, expect, it } from "vitest";
import { evaluateMergedThresholds, type MergedResult, thresholdsAsK6Summary } from "../src/k6/k6-merged-thresholds";
import type { MetricCell } from "../src/runs/metric-summary";
import { resultCell } from "./result-cell";

const check = (passes: number, count: number): MetricCell => ({
  ts: new Date(1_700_000_000_000),
  kind: "check",
  name: "status 200",
  unit: "",
  count,
  passes,
  sum: passes,
  min: 0,
  max: 1,
  last: 1,
  buckets: null,
});
// Two generators' seconds: 20 fast successes each, and one generator's 2 slow failures.
const merged: MergedResult = {
  cells: [resultCell(0, Array(20).fill(10)), resultCell(0, Array(20).fill(12)), resultCell(1, [900, 1000], "5xx", 2)],
  metrics: [check(19, 20), check(20, 20)],
  load: [{ ts: new Date(1_700_000_000_000), vus: 4, iterations: 42, droppedIterations: 0, bytesSent: 100, bytesReceived: 200 }],
  durationSeconds: 2,
};
const judge = (sources: Record<string, string[]>) => evaluateMergedThresholds(sources, merged);

describe("evaluateMergedThresholds", () => {
  it("judges counts, rates and trends on the sum of all generators", () => {
    expect(
      judge({ http_reqs: ["count==42", "rate>20", "count<40"], http_req_failed: ["rate<0.1"], checks: ["rate>0.97", "rate==1"] }).map(
        (t) => [t.metric, t.expression, t.ok],
      ),
    ).toEqual([
      ["checks", "rate==1", false],
      ["checks", "rate>0.97", true],
      ["http_req_failed", "rate<0.1", true],
      ["http_reqs", "count<40", false],
      ["http_reqs", "count==42", true],
      ["http_reqs", "rate>20", true],
    ]);
  });

  it("reads p(N), avg and max of http_req_duration, and its expected_response tag", () => {
    const out = judge({
      http_req_duration: ["p(99)<500", "max>=1000", "avg<100"],
      "http_req_duration{expected_response:true}": ["p(99)<500", "max<13"],
    });
    expect(out.map((t) => [t.metric, t.expression, t.ok])).toEqual([
      ["http_req_duration", "avg<100", true],
      ["http_req_duration", "max>=1000", true],
      ["http_req_duration", "p(99)<500", false],
      ["http_req_duration{expected_response:true}", "max<13", true],
      ["http_req_duration{expected_response:true}", "p(99)<500", true],
    ]);
    expect(thresholdsAsK6Summary(out).metrics.http_req_duration?.thresholds).toEqual({
      "avg<100": false,
      "max>=1000": false,
      "p(99)<500": true,
    });
  });

  it("reports what the output does not record as not evaluated, and failed", () => {
    const out = judge({
      http_req_waiting: ["p(95)<100"],
      "http_req_duration{scenario:a}": ["p(95)<100"],
      iterations: ["count==42", "p(95)<1"],
    });
    expect(out.map((t) => [t.metric, t.expression, t.ok, Boolean(t.unevaluated)])).toEqual([
      ["http_req_duration{scenario:a}", "p(95)<100", false, true],
      ["http_req_waiting", "p(95)<100", false, true],
      ["iterations", "count==42", true, false],
      ["iterations", "p(95)<1", false, true],
    ]);
  });
});
