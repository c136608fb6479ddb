// Reports CI understands (issue 24): `--junit FILE` (each k6 threshold and each --fail-on rule a test case, the
// run itself one too) and `--summary FILE` (GitHub-flavoured markdown, e.g. $GITHUB_STEP_SUMMARY). Pure: from
// what the server answered about the run and the comparison.
import type { RunViewAnswer } from "@opsbench/api";
import { type GateResult, STORED_QUANTILE_KEYS } from "@opsbench/core";
import type { RunReport } from "./run-report";

/** What the reports read of the run: the API's run view's parts. */
export type CiRun = RunReport & Pick<RunViewAnswer, "target" | "workload" | "thresholds" | "thresholdsOk">;

export interface CiReport {
  run: CiRun;
  /** The run's page. */
  runUrl: string;
  comparison: {
    /** The baseline run; with --baseline-runs the baseline side is `baselineIds` (it first). */
    baselineId: string;
    baselineIds: readonly string[];
    /** The stated run-to-run CV, percent (--run-cv), or null. */
    runCvPercent: number | null;
    /** The samples a side the verdicts stand on (runs, or one run's seconds) and their scope. */
    samples: { baseline: number; candidate: number; basis: string; scope: string } | null;
    url: string;
    results: GateResult[];
  } | null;
  /** `--fail-on-inconclusive`: an inconclusive rule fails the build (99) like a failed one. */
  failOnInconclusive?: boolean;
  /** `--baseline latest-baseline` found none (--if-no-baseline pass): what was said, and the rules left unjudged. */
  noBaseline?: { message: string; rules: string[] } | null;
}

/** Whether a rule's outcome fails the build: a failure, or (asked for) an inconclusive one. */
const failsBuild = (r: CiReport, g: GateResult) => g.outcome === "fail" || (r.failOnInconclusive === true && g.outcome === "inconclusive");

/**
 * The exit code the report stands for: 1 the run did not succeed, 99 a threshold or a --fail-on rule failed (or,
 * with --fail-on-inconclusive, was inconclusive), else 0.
 */
export function reportExitCode(r: CiReport): number {
  if (r.run.status !== "SUCCEEDED") return 1;
  const thresholdsFailed = r.run.k6ExitCode === 99 || r.run.thresholdsOk === false || r.run.thresholds.some((t) => !t.ok);
  const gateFailed = r.comparison?.results.some((g) => failsBuild(r, g)) ?? false;
  return thresholdsFailed || gateFailed ? 99 : 0;
}

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c] ?? c);

interface Case {
  classname: string;
  name: string;
  failure?: string;
  error?: string;
  skipped?: string;
  out?: string;
}

function cases(r: CiReport): Case[] {
  const out: Case[] = [];
  const ok = r.run.status === "SUCCEEDED";
  out.push({
    classname: "opsbench.run",
    name: `run ${r.run.id}`,
    ...(ok ? { out: r.runUrl } : { error: `${r.run.status}${r.run.error ? `: ${r.run.error}` : ""}` }),
  });
  for (const t of r.run.thresholds)
    out.push({
      classname: `k6.thresholds.${t.metric}`,
      name: `${t.metric}: ${t.expression}`,
      ...(t.ok ? {} : { failure: `threshold ${t.expression} on ${t.metric} failed` }),
    });
  // k6 said its thresholds failed but no summary lists them (e.g. a run on several generators): one case for all.
  if (!r.run.thresholds.length && (r.run.k6ExitCode === 99 || r.run.thresholdsOk === false))
    out.push({ classname: "k6.thresholds", name: "k6 thresholds", failure: "k6 exited 99: thresholds failed" });
  // Inconclusive is its own outcome, not a pass: skipped with the reason (a failure with --fail-on-inconclusive).
  // No baseline yet: each rule is there, skipped with the reason, so the report shows what was not judged.
  if (!r.comparison)
    for (const rule of r.noBaseline?.rules ?? []) out.push({ classname: "opsbench.gate", name: rule, skipped: r.noBaseline!.message });
  for (const g of r.comparison?.results ?? [])
    out.push({
      classname: "opsbench.gate",
      name: g.rule.text,
      ...(failsBuild(r, g) ? { failure: g.message } : g.outcome === "pass" ? { out: g.message } : { skipped: g.message }),
    });
  return out;
}

export function junitXml(r: CiReport): string {
  const all = cases(r);
  const count = (k: keyof Case) => all.filter((c) => c[k] !== undefined).length;
  const suite = `opsbench ${r.run.target?.name ?? "?"} / ${r.run.workload?.name ?? "?"}`;
  const totals = `tests="${all.length}" failures="${count("failure")}" errors="${count("error")}"`;
  const body = all
    .map((c) => {
      const inner = [
        c.failure !== undefined ? `      <failure message="${xml(c.failure)}">${xml(c.failure)}</failure>` : "",
        c.error !== undefined ? `      <error message="${xml(c.error)}">${xml(c.error)}</error>` : "",
        c.skipped !== undefined ? `      <skipped message="${xml(c.skipped)}"/>` : "",
        c.out !== undefined ? `      <system-out>${xml(c.out)}</system-out>` : "",
      ].filter(Boolean);
      const open = `    <testcase classname="${xml(c.classname)}" name="${xml(c.name)}"`;
      return inner.length ? `${open}>\n${inner.join("\n")}\n    </testcase>` : `${open}/>`;
    })
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="opsbench" ${totals}>
  <testsuite name="${xml(suite)}" ${totals} skipped="${count("skipped")}">
${body}
  </testsuite>
</testsuites>
`;
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

export function markdownSummary(r: CiReport): string {
  const code = reportExitCode(r);
  const inconclusive = r.comparison?.results.filter((g) => g.outcome === "inconclusive").length ?? 0;
  const unsure = inconclusive ? ` (${inconclusive} rule${inconclusive === 1 ? "" : "s"} inconclusive)` : "";
  const verdict =
    code === 0 ? `✅ passed${unsure}` : code === 99 ? `❌ failed its thresholds or gates${unsure}` : `❌ ${r.run.status.toLowerCase()}`;
  const s = r.run.summary;
  const lines = [
    `### opsbench: ${r.run.target?.name ?? "?"} / ${r.run.workload?.name ?? "?"} ${verdict}`,
    "",
    `Run [\`${r.run.id.slice(0, 8)}\`](${r.runUrl})${r.run.error ? `: ${cell(r.run.error)}` : ""}`,
    "",
  ];
  if (s)
    lines.push(
      `| requests | failed | goodput | req/s | ${STORED_QUANTILE_KEYS.map((q) => `${q} ms`).join(" | ")} |`,
      `|---:|---:|---:|---:|${STORED_QUANTILE_KEYS.map(() => "---:|").join("")}`,
      `| ${s.requests} | ${s.failures} | ${s.goodput.toFixed(2)} % | ${s.rps.toFixed(1)} | ${STORED_QUANTILE_KEYS.map((q) => s.latencyMs[q].toFixed(1)).join(" | ")} |`,
      "",
    );
  if (r.run.thresholds.length) {
    lines.push("| k6 threshold | |", "|---|---|");
    for (const t of r.run.thresholds) lines.push(`| \`${cell(t.metric)}: ${cell(t.expression)}\` | ${t.ok ? "✅" : "❌"} |`);
    lines.push("");
  }
  if (!r.comparison && r.noBaseline) lines.push(`${r.noBaseline.message} (no rule was judged).`, "");
  if (r.comparison) {
    const c = r.comparison;
    const side = c.baselineIds.length > 1 ? ` and the ${c.baselineIds.length - 1} runs before it` : "";
    const cv = c.runCvPercent === null ? "" : `, run-to-run CV stated as ${c.runCvPercent}%`;
    lines.push(`Compared with the baseline [\`${c.baselineId.slice(0, 8)}\`](${c.url})${side}${cv}:`, "");
    if (r.comparison.results.length) {
      lines.push("| rule | outcome | change |", "|---|---|---|");
      const icon = { fail: "❌ fail", pass: "✅ pass", inconclusive: "➖ inconclusive", "no-verdict": "➖ no verdict" } as const;
      for (const g of r.comparison.results)
        lines.push(
          `| \`${cell(g.rule.text)}\` | ${g.outcome === "inconclusive" && failsBuild(r, g) ? "❌ inconclusive" : icon[g.outcome]} | ${cell(g.message)} |`,
        );
      lines.push("");
    }
  }
  return `${lines.join("\n")}\n`;
}
