// Baselines and gates against a server (issue 24): `opsbench baseline set|show`, `opsbench compare`, and the
// --baseline/--fail-on/--junit/--summary options `opsbench run` shares with compare. The verdicts are the
// server's verdict engine's (GET /api/v1/comparisons); a rule only reads their intervals (core compare/gate-rules.ts).
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { BASELINE_RUNS_MAX, BASELINE_RUNS_MIN, type RunViewAnswer, runCvPercentQuery } from "@opsbench/api";
import { evaluateGateRule, type GateResult, type GateRule, parseGateRule, seriesKeyText } from "@opsbench/core";
import { type CiReport, junitXml, markdownSummary, reportExitCode } from "./ci-report";
import {
  baselineBranchOf,
  HISTORY_MIN_RUNS,
  type HistoryBaseline,
  historyBaseline,
  noHistoryNotice,
  seriesKeyOfView,
} from "./history-baseline";
import { reportToGitHubActions } from "./github-actions";
import { COMMENT_METRICS, type CommentMetric, postPrComment } from "./pr-comment";
import {
  comparisonQuery,
  type GateSelection,
  type Remote,
  remoteBaselineRuns,
  remoteBaselines,
  remoteGateTripped,
  remoteRunReport,
  remoteSetBaseline,
  remoteVerdicts,
} from "./remote-client";
import { runSummaryJson } from "./run-report";
import { parsing, UsageError } from "./usage-error";

export const GATE_USAGE = `  opsbench baseline set RUN_ID | show [--target NAME] [--workload NAME] [--json]
                                                              mark a succeeded run as its target and workload's baseline; list them
  opsbench compare RUN_ID --baseline RUN_ID|latest-baseline [--fail-on RULE]... [--run-cv PCT | --baseline-runs N]
                   [--baseline-branch NAME] [--fail-on-inconclusive] [--junit FILE] [--summary FILE] [--json]
                   [--pr-comment [--pr N] [--comment-metric p50|p95|p99|rps]]
                                                              compare a run with a baseline by the verdict engine; exit 99 when a rule
                                                              fails beyond its interval (RULE: "p95 > +10%", "goodput < -1pp", "p99 > +20ms")
                                                              one run a side is judged within-run: every rule is inconclusive unless
                                                              --run-cv PCT states the run-to-run CV in percent (e.g. 10: the interval is
                                                              widened by it) or --baseline-runs N (2-30) compares the last N runs of the
                                                              baseline's target x workload (an import: of its name) with the run;
                                                              --fail-on-inconclusive: an inconclusive rule fails too (exit 99)
                                                              --baseline-runs N without a run id (or with latest-baseline): the
                                                              baseline side is the run's series' last N succeeded runs on the
                                                              baseline branch (--baseline-branch, default the pull request's base,
                                                              else the repository's default branch, else main); fewer than 2 is
                                                              no baseline yet (--if-no-baseline)
                                                              --pr-comment: post (or update) the outcome as one comment on the
                                                              GitHub pull request (GITHUB_TOKEN, GITHUB_REPOSITORY, the event's
                                                              pull_request.number or --pr N); GitHub's errors are warnings
  run and compare take --baseline, --fail-on, --run-cv, --baseline-runs, --baseline-branch NAME, --pr-comment (with
    --comment-metric p50|p95|p99|rps; run's --pr N or the event's pull request), --fail-on-inconclusive, --junit FILE (JUnit
    XML), --summary FILE (GitHub markdown) and --if-no-baseline pass|fail (--baseline latest-baseline when the target
    and workload have none yet: pass, the default, goes on without a comparison, exit 0 unless a threshold failed,
    and marks the run as the first baseline when it succeeded; fail exits 2 before any load)`;

/** The options `run` and `compare` share. */
export const GATE_OPTIONS = {
  baseline: { type: "string" },
  "fail-on": { type: "string", multiple: true },
  "run-cv": { type: "string" },
  "baseline-runs": { type: "string" },
  "fail-on-inconclusive": { type: "boolean" },
  junit: { type: "string" },
  summary: { type: "string" },
  "if-no-baseline": { type: "string" },
  "baseline-branch": { type: "string" },
  "pr-comment": { type: "boolean" },
  "comment-metric": { type: "string" },
} as const;

export interface GateOptions {
  baseline?: string | undefined;
  "fail-on"?: string[] | undefined;
  "run-cv"?: string | undefined;
  "baseline-runs"?: string | undefined;
  "fail-on-inconclusive"?: boolean | undefined;
  junit?: string | undefined;
  summary?: string | undefined;
  "if-no-baseline"?: string | undefined;
  "baseline-branch"?: string | undefined;
  "pr-comment"?: boolean | undefined;
  "comment-metric"?: string | undefined;
  /** The pull request's number (`--pr`: run's provenance flag, compare's own). */
  pr?: string | undefined;
}

interface Io {
  say: (m: string) => void;
  out: (m: string) => void;
}

/** `--run-cv PCT`: the stated run-to-run coefficient of variation in percent (the API's bounds), or undefined. */
export function runCvPercentOf(o: GateOptions): number | undefined {
  const raw = o["run-cv"];
  if (raw === undefined) return undefined;
  const parsed = runCvPercentQuery.safeParse(raw.trim() === "" ? "x" : raw);
  if (!parsed.success || parsed.data === undefined)
    throw new UsageError(`--run-cv ${raw}: ${(parsed.error?.issues[0]?.message ?? "expected a number").replace(/^runCv: /, "")}`);
  // 0 would read two single runs as if a run never differed from the next: the false alarms --run-cv is there to stop.
  if (parsed.data === 0) throw new UsageError(`--run-cv ${raw}: must be above 0 (percent); runs of one configuration do differ`);
  return parsed.data;
}

/** `--baseline-runs N`: how many runs the baseline side holds (2 to 30), or undefined (the baseline run alone). */
export function baselineRunsOf(o: GateOptions): number | undefined {
  const raw = o["baseline-runs"];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < BASELINE_RUNS_MIN || n > BASELINE_RUNS_MAX)
    throw new UsageError(
      `--baseline-runs ${raw}: expected a whole number of runs from ${BASELINE_RUNS_MIN} to ${BASELINE_RUNS_MAX} (one run a side is judged within-run: use --run-cv PCT for that)`,
    );
  return n;
}

/**
 * Whether the baseline side comes from history: `--baseline-runs N` with no run id (`--baseline` left out or
 * latest-baseline). A run id given keeps the marks' history (GET /api/v1/runs/{id}/baseline).
 */
export const isHistoryGate = (o: GateOptions): boolean =>
  o["baseline-runs"] !== undefined && (o.baseline === undefined || o.baseline === "latest-baseline");

/** `--comment-metric`: what the pull-request comment leads with (p95 unless chosen). */
export function commentMetricOf(o: GateOptions): CommentMetric {
  const m = o["comment-metric"] ?? "p95";
  if (!(COMMENT_METRICS as readonly string[]).includes(m))
    throw new UsageError(`--comment-metric must be one of ${COMMENT_METRICS.join(", ")}, not "${m}"`);
  return m as CommentMetric;
}

/** `--pr N` as a number, or undefined. */
export function prNumberOf(o: GateOptions): number | undefined {
  if (o.pr === undefined) return undefined;
  if (!/^\d+$/.test(o.pr) || Number(o.pr) < 1)
    throw new UsageError(`--pr: a pull request's number (a positive whole number), not "${o.pr}"`);
  return Number(o.pr);
}

/** The rules, parsed before anything is started (a bad rule or option is exit 2, not a run thrown away). */
export function gateRules(o: GateOptions): GateRule[] {
  const rules = (o["fail-on"] ?? []).map((text) => parsing(() => parseGateRule(text)));
  for (const needs of ["fail-on", "run-cv", "if-no-baseline"] as const)
    if (o[needs] !== undefined && !o.baseline && o["baseline-runs"] === undefined)
      throw new UsageError(`--${needs} needs --baseline RUN_ID|latest-baseline or --baseline-runs N`);
  if (o["baseline-branch"] !== undefined && !isHistoryGate(o))
    throw new UsageError("--baseline-branch goes with --baseline-runs N (the history of that branch), not with a baseline run id");
  if (o["comment-metric"] !== undefined && !o["pr-comment"]) throw new UsageError("--comment-metric goes with --pr-comment");
  runCvPercentOf(o);
  baselineRunsOf(o);
  ifNoBaselineOf(o);
  baselineBranchOf(o["baseline-branch"]);
  commentMetricOf(o);
  prNumberOf(o);
  return rules;
}

/** `--if-no-baseline pass|fail`: what `--baseline latest-baseline` does when the pair has no baseline yet (default pass). */
export function ifNoBaselineOf(o: GateOptions): "pass" | "fail" {
  const v = o["if-no-baseline"] ?? "pass";
  if (v !== "pass" && v !== "fail") throw new UsageError(`--if-no-baseline must be pass or fail, not "${v}"`);
  return v;
}

/** What `--if-no-baseline pass` says when the pair has no baseline yet. */
export const noBaselineNotice = (target: string, workload: string, branch: string | null | undefined) =>
  `no baseline yet for workload ${workload} on target ${target}${branch ? ` (branch ${branch})` : ""}: this run becomes the first`;

/**
 * The baseline side: the baseline run alone, or with --baseline-runs N the last N runs of its series ending at it
 * (the server's GET /api/v1/runs/{id}/baseline), the candidate left out. Fewer found than asked is said, and the
 * comparison goes on with those.
 */
async function baselineSide(remote: Remote, baselineId: string, candidateId: string, o: GateOptions, io: Io): Promise<string[]> {
  const wanted = baselineRunsOf(o);
  if (wanted === undefined) return [baselineId];
  const found = await remoteBaselineRuns(remote, baselineId, wanted, candidateId);
  const n = found.runIds.length;
  if (n < wanted)
    io.say(
      `--baseline-runs ${wanted}: found only ${n} (${found.series}, up to the baseline); the baseline side is ${n === 1 ? "that one run" : `those ${n}`}`,
    );
  else io.say(`baseline side: ${found.series}, the last ${wanted} up to the baseline`);
  return found.runIds;
}

/**
 * The baseline's run id: the one given, or the workspace's for the target and workload ("latest-baseline"). `run`
 * asks before it starts anything, so a missing baseline costs no load test. None yet: null with `--if-no-baseline
 * pass` (the default; the caller says so and goes on without a comparison), a usage error (2) with `fail`.
 */
export async function resolveBaseline(
  remote: Remote,
  given: string,
  target: string | undefined,
  workload: string | undefined,
  o: GateOptions = {},
): Promise<string | null> {
  if (given !== "latest-baseline") return given;
  if (!target || !workload)
    throw new UsageError("--baseline latest-baseline needs a run of a saved target and workload: name a baseline run");
  const [found] = await remoteBaselines(remote, { target, workload });
  if (found) return found.runId;
  if (ifNoBaselineOf(o) === "pass") return null;
  throw new UsageError(
    `no baseline for target ${target} and workload ${workload} yet (--if-no-baseline fail): mark one with \`opsbench baseline set RUN_ID\``,
  );
}

/** The first run of a pair without a baseline becomes its baseline (when it succeeded); a refusal is said, not fatal. */
async function markFirstBaseline(remote: Remote, view: RunViewAnswer, io: Io): Promise<void> {
  if (view.status !== "SUCCEEDED") return;
  try {
    const b = await remoteSetBaseline(remote, view.id);
    io.say(`run ${b.runId} is now the baseline for target ${b.target} and workload ${b.workload}`);
  } catch (err) {
    io.say(`could not mark run ${view.id} as the baseline: ${(err as Error).message}`);
  }
}

/**
 * The baseline side from history (isHistoryGate): the run's series' last N succeeded, valid runs on the baseline
 * branch. Fewer than HISTORY_MIN_RUNS: null and the notice said (--if-no-baseline pass), or a usage error (fail).
 */
async function historySide(remote: Remote, view: RunViewAnswer, o: GateOptions, io: Io): Promise<HistoryBaseline | string> {
  const key = seriesKeyOfView(view);
  if (!key)
    throw new UsageError(
      `run ${view.id} is in no series (an import without --series): --baseline-runs without a run id reads a series' history; give --baseline RUN_ID`,
    );
  const { branch, from } = baselineBranchOf(o["baseline-branch"]);
  const wanted = baselineRunsOf(o)!;
  const h = await historyBaseline(remote, key, branch, wanted, view.id);
  if (h.runIds.length < HISTORY_MIN_RUNS) {
    const notice = noHistoryNotice(h);
    if (ifNoBaselineOf(o) === "fail") throw new UsageError(`${notice} (--if-no-baseline fail)`);
    return notice;
  }
  const fewer = h.runIds.length < wanted ? ` (--baseline-runs ${wanted}: found only ${h.runIds.length})` : "";
  io.say(`baseline side: the last ${h.runIds.length} succeeded runs of series ${h.series} on branch ${branch} (${from})${fewer}`);
  return h;
}

/**
 * Compares a finished run with its baseline (when asked), writes the reports asked for, posts the pull-request
 * comment (--pr-comment); the report and exit code. `noBaseline`: `run` found no baseline before it started
 * (--if-no-baseline pass) and said so.
 */
export async function gateAndReport(
  remote: Remote,
  view: RunViewAnswer,
  o: GateOptions,
  rules: GateRule[],
  io: Io,
  noBaseline: string | null = null,
): Promise<{ code: number; report: CiReport }> {
  let comparison: CiReport["comparison"] = null;
  let baselineId: string | null = null;
  let history: HistoryBaseline | null = null;
  let baselineIds: string[] | null = null;
  const fromHistory = isHistoryGate(o);
  if (fromHistory && view.status === "SUCCEEDED") {
    const side = await historySide(remote, view, o, io);
    if (typeof side === "string") {
      noBaseline = side;
      io.say(noBaseline);
    } else {
      history = side;
      baselineIds = side.runIds;
      baselineId = side.runIds[0]!;
    }
  } else if (o.baseline && view.status === "SUCCEEDED") {
    baselineId = await resolveBaseline(remote, o.baseline, view.target?.name, view.workload?.name, o);
    if (baselineId === null) {
      noBaseline = noBaselineNotice(view.target?.name ?? "?", view.workload?.name ?? "?", view.provenance?.branch);
      io.say(noBaseline);
    }
  }
  // A history gate needs no mark: the baseline branch's next runs form the baseline on their own.
  if (noBaseline && !fromHistory) await markFirstBaseline(remote, view, io);
  let verdicts: Awaited<ReturnType<typeof remoteVerdicts>> | null = null;
  if (baselineId !== null && view.status === "SUCCEEDED") {
    if (baselineId === view.id) throw new UsageError(`run ${view.id} is its own baseline: compare it with another run`);
    const selection: GateSelection = {
      baselineIds: baselineIds ?? (await baselineSide(remote, baselineId, view.id, o, io)),
      candidateId: view.id,
      runCvPercent: runCvPercentOf(o),
    };
    verdicts = await remoteVerdicts(remote, selection);
    const url = `${remote.url}/compare?${comparisonQuery(selection)}`;
    // The samples a side, as the engine judged them (runs, or seconds of one run): what the verdicts stand on.
    const judged = verdicts.find((v) => v.estimate !== null) ?? verdicts[0];
    comparison = {
      baselineId,
      baselineIds: selection.baselineIds,
      runCvPercent: selection.runCvPercent ?? null,
      samples: judged ? { baseline: judged.samples[0], candidate: judged.samples[1], basis: judged.basis, scope: judged.scope } : null,
      url,
      results: rules.map((r) => evaluateGateRule(r, verdicts!)),
    };
    io.say(`compared with baseline ${baselineId.slice(0, 8)}: ${url}`);
    for (const g of comparison.results) io.say(`  ${g.outcome === "fail" ? "FAIL" : g.outcome}: ${g.message}`);
    await reportTrippedGate(remote, view.id, baselineId, comparison.results, url, io);
  }
  const report: CiReport = {
    run: view,
    runUrl: `${remote.url}/runs/${view.id}`,
    comparison,
    failOnInconclusive: o["fail-on-inconclusive"] === true,
    noBaseline: noBaseline ? { message: noBaseline, rules: rules.map((r) => r.text) } : null,
  };
  if (o.junit) writeFileSync(o.junit, junitXml(report));
  if (o.summary) writeFileSync(o.summary, markdownSummary(report), { flag: "a" }); // $GITHUB_STEP_SUMMARY is appended to
  if (o["pr-comment"]) {
    const key = seriesKeyOfView(view);
    const input = {
      report,
      seriesKey: key ? seriesKeyText(key) : `run-${view.id}`,
      metric: commentMetricOf(o),
      history,
      verdicts,
      commit: view.provenance.commit,
    };
    // Best effort: GitHub's refusal or absence is a warning (said inside), never the gate's exit code.
    await postPrComment(remote, input, prNumberOf(o), io.say).catch((err) =>
      io.say(`::warning::opsbench could not comment on the pull request: ${(err as Error).message}`),
    );
  }
  // On GitHub Actions: annotations for what did not pass, and the step's outputs.
  reportToGitHubActions(report, io.say);
  return { code: reportExitCode(report), report };
}

/**
 * Gates are judged here, on the CLI's side; a rule that failed is reported to the server, which notifies the
 * workspace (gate.tripped: docs/notifications.md). Best effort: a server that cannot take it changes no exit code.
 */
async function reportTrippedGate(
  remote: Remote,
  runId: string,
  baselineRunId: string,
  results: readonly GateResult[],
  comparisonUrl: string,
  io: Io,
): Promise<void> {
  const failed = results.filter((g) => g.outcome === "fail");
  if (!failed.length) return;
  try {
    const rules = failed.map((g) => ({ rule: g.rule.text.slice(0, 200), message: g.message.slice(0, 1000) }));
    const deliveries = await remoteGateTripped(remote, runId, { baselineRunId, rules, comparisonUrl });
    if (deliveries) io.say(`  the workspace was notified (${deliveries} deliver${deliveries === 1 ? "y" : "ies"} queued)`);
  } catch (err) {
    io.say(`  could not report the tripped gate to the server: ${(err as Error).message}`);
  }
}

/** The JSON `run --json` and `compare --json` print: the run's summary, and the comparison when there is one. */
export function reportJson(report: CiReport) {
  const c = report.comparison;
  return {
    ...runSummaryJson(report.run),
    ...(report.noBaseline ? { noBaseline: report.noBaseline.message } : {}),
    ...(c
      ? {
          comparison: {
            baselineId: c.baselineId,
            baselineIds: c.baselineIds,
            runCvPercent: c.runCvPercent,
            samples: c.samples,
            url: c.url,
            rules: c.results.map((g) => ({ rule: g.rule.text, outcome: g.outcome, change: g.change, message: g.message })),
          },
        }
      : {}),
  };
}

export async function baselineCommand(remote: Remote, args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parsing(() =>
    parseArgs({
      args: rest,
      strict: true,
      allowPositionals: true,
      options: { target: { type: "string" }, workload: { type: "string" }, json: { type: "boolean", default: false } },
    }),
  );
  if (sub === "set") {
    if (positionals.length !== 1) throw new UsageError("baseline set needs one RUN_ID");
    const b = await remoteSetBaseline(remote, positionals[0]!);
    io.out(values.json ? JSON.stringify(b) : `run ${b.runId} is the baseline for target ${b.target} and workload ${b.workload}`);
    return 0;
  }
  if (sub === "show") {
    const found = await remoteBaselines(remote, { target: values.target, workload: values.workload });
    io.out(
      values.json
        ? JSON.stringify(found, null, 2)
        : found.map((b) => `${b.target} / ${b.workload}: run ${b.runId} (since ${b.createdAt})`).join("\n") || "no baselines yet",
    );
    return 0;
  }
  throw new UsageError(`unknown command "baseline ${sub ?? ""}" (known: baseline set, baseline show)`);
}

export async function compareCommand(remote: Remote, args: string[], io: Io): Promise<number> {
  const { values, positionals } = parsing(() =>
    parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: { ...GATE_OPTIONS, pr: { type: "string" }, json: { type: "boolean", default: false } },
    }),
  );
  if (positionals.length !== 1) throw new UsageError("compare needs one RUN_ID (the candidate)");
  if (!values.baseline && values["baseline-runs"] === undefined)
    throw new UsageError("compare needs --baseline RUN_ID|latest-baseline or --baseline-runs N (the baseline branch's last N runs)");
  const rules = gateRules(values);
  const view = await remoteRunReport(remote, positionals[0]!);
  if (view.status !== "SUCCEEDED") io.say(`run ${view.id} is ${view.status}: nothing to compare`);
  const { code, report } = await gateAndReport(remote, view, values, rules, io);
  if (values.json) io.out(JSON.stringify(reportJson(report)));
  return code;
}
