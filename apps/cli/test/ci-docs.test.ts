// docs/ci.md and the composite action (.github/actions/opsbench) are what a team copies: they must parse, and
// every `opsbench` command they name must exist with those flags. Each command is run for real (the repository's
// CLI, in remote mode) against a server that is not there: a known command with known flags gets as far as the
// network (exit 69, "cannot reach", at once with OPSBENCH_RETRY_FOR=0); an unknown flag or command would be exit 2.
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { opsbenchCommand } from "../../../tests/helpers";

const repo = path.resolve(import.meta.dirname, "../../..");
const doc = readFileSync(path.join(repo, "docs/ci.md"), "utf8");
const action = parseYaml(readFileSync(path.join(repo, ".github/actions/opsbench/action.yml"), "utf8")) as {
  inputs: Record<string, { required?: boolean }>;
  runs: { using: string; steps: Array<{ name?: string; shell?: string; run?: string; env?: Record<string, string> }> };
};

const work = mkdtempSync(path.join(os.tmpdir(), "opsbench-ci-docs-"));
mkdirSync(path.join(work, "load"));
writeFileSync(path.join(work, "load/test.js"), 'import http from "k6/http";\nexport default function () {}\n');
// A k6 result file (`--out json`) of one request, for the documented `opsbench import k6 results.json`.
const k6Point = {
  type: "Point",
  metric: "http_req_duration",
  data: { time: "2026-11-29T12:00:00.000Z", value: 12.5, tags: { name: "get", status: "200", expected_response: "true" } },
};
writeFileSync(path.join(work, "results.json"), `${JSON.stringify(k6Point)}\n`);
// `opsbench` on PATH: the repository's CLI (the packed one is the same remote mode, packed-cli.test.ts).
const bin = path.join(work, "bin");
mkdirSync(bin);
writeFileSync(path.join(bin, "opsbench"), `#!/bin/sh\nexec "${process.execPath}" "${opsbenchCommand()}" "$@"\n`);
chmodSync(path.join(bin, "opsbench"), 0o755);
const nowhere = {
  OPSBENCH_URL: "http://127.0.0.1:9",
  OPSBENCH_TOKEN: "obk_ci-docs",
  // Nothing listens there: no retries, the command ends at its first call.
  OPSBENCH_RETRY_FOR: "0",
  PATH: `${bin}:${process.env.PATH}`,
};

function sh(script: string, env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", script], { cwd: work, env: { ...process.env, ...nowhere, ...env } });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => resolve({ code: code ?? -1, stderr }));
  });
}

/** The fenced blocks of a language in docs/ci.md. */
const blocks = (lang: string) => [...doc.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, "g"))].map((m) => m[1]!);

describe("docs/ci.md and the GitHub Action", () => {
  it("the action is a composite action whose run steps name their shell", () => {
    expect(action.runs.using).toBe("composite");
    const runs = action.runs.steps.filter((s) => s.run);
    expect(runs.length).toBeGreaterThan(0);
    for (const s of runs) expect(s.shell, s.name).toBe("bash");
  });

  it("the documented workflow parses and gives the action only inputs it has, and all it requires", () => {
    const [workflowText] = blocks("yaml");
    const workflow = parseYaml(workflowText!) as {
      jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, unknown> }> }>;
    };
    const step = Object.values(workflow.jobs)
      .flatMap((j) => j.steps)
      // The Action by the path a release has (<owner>/opsbench/.github/actions/opsbench@v1), not a copied folder.
      .find((s) => /^[^./][^/]*\/opsbench\/\.github\/actions\/opsbench@v\d+$/.test(s.uses ?? ""));
    expect(step).toBeDefined();
    const given = Object.keys(step!.with ?? {});
    for (const name of given) expect(Object.keys(action.inputs), name).toContain(name);
    for (const [name, input] of Object.entries(action.inputs)) if (input.required) expect(given, name).toContain(name);
  });

  it("every opsbench command in docs/ci.md exists with its flags", async () => {
    const lines = blocks("sh")
      .join("\n")
      .replace(/\\\n\s*/g, " ")
      .split("\n")
      .map((l) => l.replace(/#.*$/, "").trim())
      .filter((l) => /(^|\$\()opsbench /.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const line of lines) {
      // `id=$(opsbench run ... | jq -r .id)`: the command itself; RUN_ID and $id stand for a run id.
      const command = (/opsbench [^|)]*/.exec(line)?.[0] ?? line).replace(/RUN_ID|"\$id"/g, "00000000-0000-0000-0000-000000000000");
      const r = await sh(command);
      expect(r.stderr, command).toContain("cannot reach http://127.0.0.1:9");
      expect(r.code, command).toBe(69);
    }
  });

  it("the action's script builds a command the CLI takes, every rule a --fail-on", async () => {
    const step = action.runs.steps.find((s) => s.run?.includes("opsbench "))!;
    const summary = path.join(work, "step-summary.md");
    const r = await sh(step.run!, {
      INPUT_TARGET: "staging-api",
      INPUT_SCRIPT: "load/test.js",
      INPUT_WORKLOAD: "",
      INPUT_BASELINE: "latest-baseline",
      INPUT_FAIL_ON: "p95 > +10%\ngoodput < -1pp\n",
      INPUT_JUNIT: path.join(work, "junit.xml"),
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(r.stderr).toContain("cannot reach http://127.0.0.1:9");
    expect(r.code).toBe(69);
    // A bad rule in the input is refused before anything else (exit 2), which shows each line became one --fail-on.
    const bad = await sh(step.run!, {
      INPUT_TARGET: "t",
      INPUT_SCRIPT: "load/test.js",
      INPUT_BASELINE: "x",
      INPUT_FAIL_ON: "p95 > +10%\nlatency > 1%",
      INPUT_JUNIT: "j.xml",
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--fail-on "latency > 1%"');
    // The gate's options for one run a side reach the CLI too: a bad --baseline-runs is refused the same way.
    const fewRuns = await sh(step.run!, {
      INPUT_TARGET: "t",
      INPUT_SCRIPT: "load/test.js",
      INPUT_BASELINE: "x",
      INPUT_FAIL_ON: "p95 > +10%",
      INPUT_RUN_CV: "10",
      INPUT_BASELINE_RUNS: "1",
      INPUT_FAIL_ON_INCONCLUSIVE: "true",
      INPUT_JUNIT: "j.xml",
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(fewRuns.code).toBe(2);
    expect(fewRuns.stderr).toContain("--baseline-runs 1: expected a whole number of runs from 2 to 30");
    // And --if-no-baseline: a value other than pass or fail is refused before any call.
    const ifNone = await sh(step.run!, {
      INPUT_TARGET: "t",
      INPUT_SCRIPT: "load/test.js",
      INPUT_BASELINE: "latest-baseline",
      INPUT_FAIL_ON: "",
      INPUT_IF_NO_BASELINE: "maybe",
      INPUT_JUNIT: "j.xml",
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(ifNone.code).toBe(2);
    expect(ifNone.stderr).toContain('--if-no-baseline must be pass or fail, not "maybe"');
    // The comment and the history baseline's branch reach the CLI: a bad --comment-metric or --baseline-branch is
    // refused before any call, which shows the action passed them.
    const badMetric = await sh(step.run!, {
      INPUT_TARGET: "t",
      INPUT_SCRIPT: "load/test.js",
      INPUT_BASELINE: "latest-baseline",
      INPUT_BASELINE_RUNS: "5",
      INPUT_COMMENT: "true",
      INPUT_COMMENT_METRIC: "p42",
      INPUT_JUNIT: "j.xml",
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(badMetric.code).toBe(2);
    expect(badMetric.stderr).toContain('--comment-metric must be one of p50, p95, p99, rps, not "p42"');
    const badBranch = await sh(step.run!, {
      INPUT_TARGET: "t",
      INPUT_SCRIPT: "load/test.js",
      INPUT_BASELINE: "latest-baseline",
      INPUT_BASELINE_RUNS: "5",
      INPUT_BASELINE_BRANCH: "x".repeat(300),
      INPUT_JUNIT: "j.xml",
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(badBranch.code).toBe(2);
    expect(badBranch.stderr).toContain("--baseline-branch:");
  });
});
