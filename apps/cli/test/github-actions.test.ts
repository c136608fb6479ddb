// What the CLI tells GitHub Actions (github-actions.ts): an annotation for each rule that did not pass (an error when
// it fails the job), each failed threshold and a failed run, escaped as GitHub's workflow commands need; the verdict
// output; nothing at all off GitHub Actions. The Action's own test (packed-cli.test.ts) sees them in a job's log.
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type GateResult, parseGateRule } from "@opsbench/core";
import { describe, expect, it } from "vitest";
import type { CiReport } from "../src/ci-report";
import { annotations, outputLines, reportToGitHubActions, verdictOf } from "../src/github-actions";
import { parseOutputFile } from "./action-runner";

const rule = (text: string, outcome: GateResult["outcome"], message: string): GateResult => ({
  rule: parseGateRule(text),
  outcome,
  change: null,
  message,
});

function report(over: Partial<CiReport> = {}, results: GateResult[] = []): CiReport {
  return {
    run: {
      id: "2048e4cc-3801-43e4-97c9-8afcb57926ed",
      status: "SUCCEEDED" as const,
      error: null,
      k6ExitCode: 0,
      summary: null,
      steps: [],
      target: null,
      workload: null,
      thresholds: [],
      thresholdsOk: true,
    },
    runUrl: "https://bench.example.com/runs/2048e4cc-3801-43e4-97c9-8afcb57926ed",
    comparison: {
      baselineId: "b",
      baselineIds: ["b"],
      runCvPercent: null,
      samples: null,
      url: "https://bench.example.com/compare?x",
      results,
    },
    ...over,
  };
}

describe("annotations and outputs on GitHub Actions", () => {
  it("a failed rule is an error, an inconclusive one a warning (an error with --fail-on-inconclusive); '%', ':' and newlines escaped", () => {
    const results = [
      rule("p95 > +10%", "fail", "p95 changed +40%\nbeyond the limit"),
      rule("goodput < -1pp", "inconclusive", "interval spans the limit"),
      rule("p99 > +20ms", "pass", "holds"),
    ];
    const lines = annotations(report({}, results));
    expect(lines).toEqual([
      "::error title=opsbench gate p95 > +10%25%3A failed::p95 changed +40%25%0Abeyond the limit (https://bench.example.com/compare?x)",
      "::warning title=opsbench gate goodput < -1pp%3A inconclusive::interval spans the limit (https://bench.example.com/compare?x)",
    ]);
    expect(annotations(report({ failOnInconclusive: true }, results))[1]).toMatch(/^::error title=opsbench gate goodput/);
    expect(verdictOf(report({}, results))).toBe("failed");
    expect(verdictOf(report({}, results.slice(1)))).toBe("inconclusive");
    expect(verdictOf(report({}, results.slice(2)))).toBe("passed");
  });

  it("a failed run and a failed threshold are errors; the outputs name the run and its verdict", () => {
    const failed = report({
      run: {
        ...report().run,
        status: "FAILED",
        error: "target did not start",
        thresholds: [{ metric: "checks", expression: "rate>0.9", ok: false }],
      },
      comparison: null,
    } as Partial<CiReport>);
    expect(annotations(failed)).toEqual([
      "::error title=opsbench run 2048e4cc::the run failed: target did not start (https://bench.example.com/runs/2048e4cc-3801-43e4-97c9-8afcb57926ed)",
      "::error title=k6 threshold checks::checks: rate>0.9 failed in opsbench run 2048e4cc (https://bench.example.com/runs/2048e4cc-3801-43e4-97c9-8afcb57926ed)",
    ]);
    expect(parseOutputFile(outputLines(failed))).toEqual({
      "run-id": "2048e4cc-3801-43e4-97c9-8afcb57926ed",
      verdict: "run-failed",
      "run-url": "https://bench.example.com/runs/2048e4cc-3801-43e4-97c9-8afcb57926ed",
      "comparison-url": "",
    });
  });

  it("writes to GITHUB_OUTPUT only when GITHUB_ACTIONS=true", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-gha-"));
    const file = path.join(dir, "output");
    const said: string[] = [];
    const r = report({}, [rule("p95 > +10%", "fail", "worse")]);
    reportToGitHubActions(r, (m) => said.push(m), { GITHUB_OUTPUT: file });
    expect(said).toEqual([]);
    reportToGitHubActions(r, (m) => said.push(m), { GITHUB_ACTIONS: "true", GITHUB_OUTPUT: file });
    expect(said).toHaveLength(1);
    expect(parseOutputFile(readFileSync(file, "utf8")).verdict).toBe("failed");
  });
});
