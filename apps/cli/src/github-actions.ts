// On GitHub Actions (GITHUB_ACTIONS=true) the gate's outcome also goes where GitHub shows it: an annotation per
// failed or inconclusive rule, failed threshold and failed run (workflow commands, `::error title=...::message`,
// which the runner reads from the step's output), and the step's outputs (run-id, verdict, run-url, comparison-url)
// appended to $GITHUB_OUTPUT, which the Action passes on as its own. Elsewhere nothing changes. Pure but for the
// file append: no database module (the packed CLI holds it).
import { appendFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { type CiReport, reportExitCode } from "./ci-report";

export type Verdict = "passed" | "inconclusive" | "failed" | "run-failed" | "no-baseline";

/** What the report comes to, in one word (the Action's `verdict` output). */
export function verdictOf(r: CiReport): Verdict {
  const code = reportExitCode(r);
  if (code === 1) return "run-failed";
  if (code === 99) return "failed";
  if (!r.comparison && r.noBaseline) return "no-baseline";
  return r.comparison?.results.some((g) => g.outcome !== "pass") ? "inconclusive" : "passed";
}

/** A workflow command's data: GitHub's escapes (%, CR, LF), so a message stays one line. */
const escapeData = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
/** A property's value (title=...): also ':' and ','. */
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");

const command = (kind: "error" | "warning" | "notice", title: string, message: string) =>
  `::${kind} title=${escapeProperty(title)}::${escapeData(message)}`;

/** The annotations a report makes: one per failed run, failed threshold, and rule that did not pass. */
export function annotations(r: CiReport): string[] {
  const out: string[] = [];
  const run = `opsbench run ${r.run.id.slice(0, 8)}`;
  if (r.run.status !== "SUCCEEDED")
    out.push(command("error", run, `the run ${r.run.status.toLowerCase()}${r.run.error ? `: ${r.run.error}` : ""} (${r.runUrl})`));
  for (const t of r.run.thresholds)
    if (!t.ok) out.push(command("error", `k6 threshold ${t.metric}`, `${t.metric}: ${t.expression} failed in ${run} (${r.runUrl})`));
  for (const g of r.comparison?.results ?? []) {
    if (g.outcome === "pass") continue;
    const failsBuild = g.outcome === "fail" || (g.outcome === "inconclusive" && r.failOnInconclusive === true);
    const what = g.outcome === "fail" ? "failed" : g.outcome === "inconclusive" ? "inconclusive" : "no verdict";
    out.push(command(failsBuild ? "error" : "warning", `opsbench gate ${g.rule.text}: ${what}`, `${g.message} (${r.comparison!.url})`));
  }
  if (!r.comparison && r.noBaseline) out.push(command("notice", "opsbench: no baseline yet", r.noBaseline.message));
  return out;
}

/** The step's outputs, as `name=value` (a value with a newline in GitHub's `name<<DELIMITER` form). */
export function outputLines(r: CiReport): string {
  const outputs: Record<string, string> = {
    "run-id": r.run.id,
    verdict: verdictOf(r),
    "run-url": r.runUrl,
    "comparison-url": r.comparison?.url ?? "",
  };
  return Object.entries(outputs)
    .map(([k, v]) => {
      if (!/[\r\n]/.test(v)) return `${k}=${v}\n`;
      const delimiter = `ghadelimiter_${randomBytes(8).toString("hex")}`;
      return `${k}<<${delimiter}\n${v}\n${delimiter}\n`;
    })
    .join("");
}

/** Annotates and sets the outputs when on GitHub Actions; does nothing elsewhere. */
export function reportToGitHubActions(r: CiReport, say: (m: string) => void, env: NodeJS.ProcessEnv = process.env): void {
  if (env.GITHUB_ACTIONS !== "true") return;
  for (const line of annotations(r)) say(line);
  if (!env.GITHUB_OUTPUT) return;
  try {
    appendFileSync(env.GITHUB_OUTPUT, outputLines(r));
  } catch (err) {
    say(`::warning::opsbench could not write the step's outputs to GITHUB_OUTPUT: ${(err as Error).message}`);
  }
}
