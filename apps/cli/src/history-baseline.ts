// A gate's baseline from history (issue 36): with `--baseline-runs N` and no run id given, the baseline side is the
// candidate's series' last N succeeded, valid runs on the baseline branch (GET /api/v1/series/{key}/points?branch=
// &status=SUCCEEDED), the candidate left out. Nothing needs marking: every run the default branch's CI makes counts,
// and a pull request's own runs (other branches) never do. No database module: the packed CLI holds this.
import { readFileSync } from "node:fs";
import { type RunViewAnswer, type SeriesPointsAnswer, seriesPointsSchema } from "@opsbench/api";
import { provenanceFields, type SeriesKey, seriesKeyOfRun, seriesKeyText } from "@opsbench/core";
import { call, type Remote, RemoteInputError } from "./remote-client";
import { UsageError } from "./usage-error";

/** Fewer runs than this on the baseline branch is "no baseline yet": one run a side says nothing of run-to-run spread. */
export const HISTORY_MIN_RUNS = 2;

type Env = Readonly<Record<string, string | undefined>>;

/** The repository's default branch from GitHub's event payload (GITHUB_EVENT_PATH), or undefined. */
function eventDefaultBranch(env: Env): string | undefined {
  const file = env.GITHUB_EVENT_PATH;
  if (!file) return undefined;
  try {
    const event = JSON.parse(readFileSync(file, "utf8")) as { repository?: { default_branch?: unknown } };
    const b = event.repository?.default_branch;
    return typeof b === "string" && b ? b : undefined;
  } catch {
    return undefined; // an unreadable payload gives no branch; the next source is tried
  }
}

/**
 * The branch whose runs form the baseline: `--baseline-branch`, else the pull request's base branch (GitHub:
 * GITHUB_BASE_REF; GitLab: CI_MERGE_REQUEST_TARGET_BRANCH_NAME), else the repository's default branch as CI says it
 * (GitHub's event payload; GitLab: CI_DEFAULT_BRANCH), else "main". Where it came from goes with it, for the log.
 */
export function baselineBranchOf(flag: string | undefined, env: Env = process.env): { branch: string; from: string } {
  if (flag !== undefined) {
    const r = provenanceFields.branch.safeParse(flag);
    if (!r.success) throw new UsageError(`--baseline-branch: ${r.error.issues[0]?.message ?? "not a branch"}, not "${flag}"`);
    return { branch: r.data, from: "--baseline-branch" };
  }
  const candidates: Array<[string | undefined, string]> = [
    [env.GITHUB_BASE_REF, "GITHUB_BASE_REF"],
    [env.CI_MERGE_REQUEST_TARGET_BRANCH_NAME, "CI_MERGE_REQUEST_TARGET_BRANCH_NAME"],
    [eventDefaultBranch(env), "the repository's default branch (GITHUB_EVENT_PATH)"],
    [env.CI_DEFAULT_BRANCH, "CI_DEFAULT_BRANCH"],
  ];
  for (const [value, from] of candidates) if (value && provenanceFields.branch.safeParse(value).success) return { branch: value, from };
  return { branch: "main", from: "the default" };
}

/** The series a run of `target` x `workload` (or of series `name`) is in: what `run` knows before its run exists. */
export const seriesKeyFor = (name: string | undefined | null, target: string | undefined, workload: string | undefined): SeriesKey | null =>
  seriesKeyOfRun({ series: name ?? null, target: target ? { name: target } : null, workload: workload ? { name: workload } : null });

/** The series a finished run is in (null: an import without a series name, which is in none). */
export const seriesKeyOfView = (view: RunViewAnswer): SeriesKey | null =>
  seriesKeyOfRun({ series: view.provenance.series, target: view.target, workload: view.workload });

export interface HistoryBaseline {
  /** The series' key (its name, or <target>~<workload>). */
  series: string;
  branch: string;
  /** The runs found, newest first (at most N; fewer when the branch has fewer). */
  runIds: string[];
  /** Their points (oldest first), for the comment's cost and the log. */
  points: SeriesPointsAnswer["points"];
}

/**
 * The last `n` succeeded runs of the series on `branch` that no validity flag leaves out of verdicts, `exclude` (the
 * candidate) left out. A series the server has no run of yet answers none.
 */
export async function historyBaseline(
  remote: Remote,
  key: SeriesKey,
  branch: string,
  n: number,
  exclude?: string,
): Promise<HistoryBaseline> {
  const series = seriesKeyText(key);
  // Some room above N: flagged runs and the candidate itself are dropped here, after the server's newest `limit`.
  const query = new URLSearchParams({ branch, status: "SUCCEEDED", limit: String(Math.min(1000, n + 20)) });
  let answer: SeriesPointsAnswer;
  try {
    answer = seriesPointsSchema.parse(await call(remote, "GET", `/api/v1/series/${encodeURIComponent(series)}/points?${query}`));
  } catch (err) {
    // 404: the series has no run yet (the first pull request of a new target x workload).
    if (err instanceof RemoteInputError && /^series ".*" not found/.test(err.message)) return { series, branch, runIds: [], points: [] };
    throw err;
  }
  const points = answer.points.filter((p) => p.valid && p.id !== exclude).slice(-n);
  return { series, branch, runIds: points.map((p) => p.id).reverse(), points };
}

/** What is said when the branch holds too few runs (the gate then behaves as with no baseline yet). */
export const noHistoryNotice = (h: Pick<HistoryBaseline, "series" | "branch" | "runIds">) =>
  `no baseline yet for series ${h.series} on branch ${h.branch}: ${h.runIds.length === 0 ? "no" : `only ${h.runIds.length}`} succeeded run${h.runIds.length === 1 ? "" : "s"} there (--baseline-runs needs ${HISTORY_MIN_RUNS})`;
