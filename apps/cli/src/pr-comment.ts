// The pull-request comment (issue 36): `--pr-comment` on `run` and `compare` posts the gate's outcome on the pull
// request as one comment, found again on the next push by a hidden marker (<!-- opsbench:<series key> -->) and edited
// in place, so a pull request holds one opsbench comment per series however often it is pushed. GitHub's REST API:
// GET /repos/{owner}/{repo}/issues/{n}/comments (paged by its Link header), PATCH .../issues/comments/{id}, POST
// .../issues/{n}/comments. Anything GitHub refuses or cannot answer is a warning: the comment never fails the gate.
import { readFileSync } from "node:fs";
import { type gateVerdictSchema, shareCreatedSchema } from "@opsbench/api";
import type { STORED_QUANTILE_KEYS } from "@opsbench/core";
import type { CiReport } from "./ci-report";
import { reportExitCode } from "./ci-report";
import type { HistoryBaseline } from "./history-baseline";
import { call, type Remote } from "./remote-client";
import type { z } from "zod";

type Env = Readonly<Record<string, string | undefined>>;
type GateVerdictAnswer = z.output<typeof gateVerdictSchema>;

/** The metrics the comment can lead with (`--comment-metric`); p95 of successful responses unless chosen. */
export const COMMENT_METRICS = ["p50", "p95", "p99", "rps"] as const;
export type CommentMetric = (typeof COMMENT_METRICS)[number];

/** Share links the comment makes expire after this long: a pull request's life, not for ever. */
export const SHARE_LINK_DAYS = 90;
/** One GitHub call's bound: the comment must not hold a CI job for long. */
const GITHUB_TIMEOUT_MS = 30_000;
/** GitHub's largest page of comments. */
const PER_PAGE = 100;
/** Pages of comments looked through for the marker at most (10,000 comments). */
const MAX_PAGES = 100;

export interface GithubTarget {
  token: string;
  apiUrl: string;
  owner: string;
  repo: string;
  pr: number;
  /** From the event payload: false for a public repository; null when the payload does not say. */
  isPrivate: boolean | null;
}

interface EventPayload {
  pull_request?: { number?: unknown };
  number?: unknown;
  repository?: { private?: unknown };
}

function readEvent(env: Env): EventPayload | null {
  if (!env.GITHUB_EVENT_PATH) return null;
  try {
    return JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8")) as EventPayload;
  } catch {
    return null;
  }
}

/**
 * Where the comment goes: GITHUB_TOKEN, GITHUB_REPOSITORY (owner/repo), GITHUB_API_URL (default api.github.com) and
 * the pull request's number (`--pr`, else the event payload's pull_request.number). A string says why there is none.
 */
export function githubTargetOf(env: Env, prFlag: number | undefined): GithubTarget | string {
  const event = readEvent(env);
  const fromEvent = event?.pull_request?.number ?? null;
  const pr = prFlag ?? (typeof fromEvent === "number" && Number.isInteger(fromEvent) && fromEvent > 0 ? fromEvent : undefined);
  if (pr === undefined) return "no pull request (not a pull_request event and no --pr N)";
  if (!env.GITHUB_TOKEN) return "GITHUB_TOKEN is not set (the Action passes github.token; the job needs permissions: pull-requests: write)";
  const [owner, repo, ...rest] = (env.GITHUB_REPOSITORY ?? "").split("/");
  if (!owner || !repo || rest.length) return `GITHUB_REPOSITORY must be owner/repo, not "${env.GITHUB_REPOSITORY ?? ""}"`;
  const isPrivate = event?.repository?.private;
  return {
    token: env.GITHUB_TOKEN,
    apiUrl: (env.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, ""),
    owner,
    repo,
    pr,
    isPrivate: typeof isPrivate === "boolean" ? isPrivate : null,
  };
}

/** The hidden line that tells this series' comment from every other one on the pull request. */
export const commentMarker = (seriesKey: string) => `<!-- opsbench:${seriesKey} -->`;

class GithubError extends Error {}

async function github(t: GithubTarget, method: string, url: string, body?: unknown): Promise<{ json: unknown; link: string | null }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${t.token}`,
        accept: "application/vnd.github+json",
        "x-github-api-version": "2022-11-28",
        "user-agent": "opsbench-cli",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(GITHUB_TIMEOUT_MS),
    });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    throw new GithubError(`${method} ${url} failed: ${e.cause?.code ?? e.message}`);
  }
  const text = await res.text().catch(() => "");
  if (!res.ok) {
    let message = text.slice(0, 200);
    try {
      message = String((JSON.parse(text) as { message?: unknown }).message ?? message);
    } catch {}
    throw new GithubError(`${method} ${url} answered ${res.status}: ${message}`);
  }
  try {
    return { json: text ? JSON.parse(text) : null, link: res.headers.get("link") };
  } catch {
    throw new GithubError(`${method} ${url} answered something that is not JSON`);
  }
}

/** The rel="next" address of a Link header (RFC 8288, as GitHub pages its lists), or null on the last page. */
export function nextLink(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(",")) {
    const m = /<([^>]+)>\s*;\s*rel="?([^";]+)"?/.exec(part.trim());
    if (m && m[2]!.split(/\s+/).includes("next")) return m[1]!;
  }
  return null;
}

/**
 * Posts `body` on the pull request, or edits the comment that carries `marker` (the first found, oldest first) so a
 * push updates it instead of adding another. Throws GithubError for anything GitHub refuses.
 */
export async function upsertPrComment(
  t: GithubTarget,
  marker: string,
  body: string,
): Promise<{ action: "created" | "updated"; id: number; url: string | null }> {
  const repo = `${t.apiUrl}/repos/${encodeURIComponent(t.owner)}/${encodeURIComponent(t.repo)}`;
  let url: string | null = `${repo}/issues/${t.pr}/comments?per_page=${PER_PAGE}`;
  let found: number | null = null;
  for (let page = 0; url && page < MAX_PAGES && found === null; page++) {
    const { json, link } = await github(t, "GET", url);
    if (!Array.isArray(json)) throw new GithubError(`GET ${url} answered something that is not a list of comments`);
    const mine = json.find((c: { id?: unknown; body?: unknown }) => typeof c.body === "string" && c.body.includes(marker));
    if (mine && typeof mine.id === "number") found = mine.id;
    url = nextLink(link);
  }
  const answer =
    found === null
      ? await github(t, "POST", `${repo}/issues/${t.pr}/comments`, { body })
      : await github(t, "PATCH", `${repo}/issues/comments/${found}`, { body });
  const c = answer.json as { id?: unknown; html_url?: unknown } | null;
  return {
    action: found === null ? "created" : "updated",
    id: typeof c?.id === "number" ? c.id : (found ?? 0),
    url: typeof c?.html_url === "string" ? c.html_url : null,
  };
}

/**
 * The link the comment carries: for a public repository (the event payload's repository.private is false) a
 * read-only share link to the comparison (or the run, without one) that expires in SHARE_LINK_DAYS, since readers of
 * a public pull request have no account on the server; else, or when the token may not make one, the run's page.
 */
async function commentLink(
  remote: Remote,
  report: CiReport,
  t: GithubTarget,
  say: (m: string) => void,
): Promise<{ url: string; shared: boolean }> {
  if (t.isPrivate !== false) return { url: report.runUrl, shared: false };
  const expiresAt = new Date(Date.now() + SHARE_LINK_DAYS * 86_400_000).toISOString();
  const c = report.comparison;
  const title = `${t.owner}/${t.repo}#${t.pr}`.slice(0, 120);
  const input = c
    ? {
        kind: "comparison",
        subject: {
          groups: [
            { label: "baseline", runIds: [...c.baselineIds] },
            { label: "this pull request", runIds: [report.run.id] },
          ],
        },
        title,
        expiresAt,
      }
    : { kind: "run", subject: { runId: report.run.id }, title, expiresAt };
  try {
    const share = shareCreatedSchema.parse(await call(remote, "POST", "/api/v1/shares", input));
    return { url: share.url, shared: true };
  } catch (err) {
    say(
      `::warning::opsbench could not make a share link for the public pull request (${(err as Error).message}); the comment links the run's page`,
    );
    return { url: report.runUrl, shared: false };
  }
}

/** What the comment's body is made of, beside the report. */
export interface CommentInput {
  report: CiReport;
  seriesKey: string;
  metric: CommentMetric;
  /** The baseline side from history (null: a run id given, or none found). */
  history: Pick<HistoryBaseline, "branch" | "runIds" | "points"> | null;
  /** The comparison's verdicts (null without a comparison). */
  verdicts: readonly GateVerdictAnswer[] | null;
  link: { url: string; shared: boolean };
  /** The run's commit (its provenance), named at the foot. */
  commit: string | null;
}

const VERDICT_METRIC: Record<CommentMetric, string> = { p50: "p50", p95: "p95", p99: "p99", rps: "req/s" };
const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
const num = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(1) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toPrecision(3));

/** The run's own value of the metric: successful responses' latency (as the verdicts judge it), or successful req/s. */
function runValue(report: CiReport, metric: CommentMetric): number | null {
  const s = report.run.summary;
  if (!s) return null;
  if (metric === "rps") return s.rps * (s.goodput / 100);
  const q = metric as (typeof STORED_QUANTILE_KEYS)[number];
  return (s.successLatencyMs ?? s.latencyMs)[q] ?? null;
}

/** The metric's line: this run's value against the baseline's, the ratio and its interval (or why there is none). */
function metricLine(i: CommentInput): string {
  const unit = i.metric === "rps" ? "req/s" : "ms";
  const label = i.metric === "rps" ? "Successful req/s" : `${i.metric} latency (successful responses)`;
  const mine = runValue(i.report, i.metric);
  const here = mine === null ? "no value" : `**${num(mine)} ${unit}**`;
  const v = i.verdicts?.find((x) => x.metric === VERDICT_METRIC[i.metric]);
  if (!v || v.baselineMean === null) return `${label}: ${here}${i.report.comparison ? " (no verdict on it in the comparison)" : ""}`;
  const ratio = (x: number | null) => (x === null ? null : v.scale === "ratio" ? x : 1 + x / v.baselineMean!);
  const [est, low, high] = [ratio(v.estimate), ratio(v.low), ratio(v.high)];
  const vs = `${here} vs ${num(v.baselineMean)} ${unit} (baseline)`;
  if (est === null) return `${label}: ${vs}; no ratio: ${cell(v.text)}`;
  const interval =
    low === null || high === null ? "no interval" : `${Math.round(v.level * 100)}% interval ×${low.toFixed(3)} to ×${high.toFixed(3)}`;
  const within = v.scope === "within-run" ? ", within the two runs only" : "";
  return `${label}: ${vs}, ratio **×${est.toFixed(3)}** (${interval}${within})`;
}

function costLine(i: CommentInput): string | null {
  const cost = i.report.run.summary?.cost;
  if (!cost || cost.perThousandSuccessfulRequests === null) return null;
  const base = (i.history?.points ?? []).map((p) => p.costPerThousand.value).filter((x): x is number => x !== null);
  const mean = base.length ? base.reduce((a, b) => a + b, 0) / base.length : null;
  const them = mean === null ? "" : ` (baseline runs' mean ${num(mean)} ${cost.unit})`;
  return `Cost per 1,000 successful requests: **${num(cost.perThousandSuccessfulRequests)} ${cost.unit}**${them}`;
}

/** The comment's markdown (pure): the marker first, then the outcome, the metric, each rule, cost, the baseline, the link. */
export function prCommentBody(i: CommentInput): string {
  const r = i.report;
  const code = reportExitCode(r);
  const c = r.comparison;
  const inconclusive = c?.results.filter((g) => g.outcome === "inconclusive").length ?? 0;
  const outcome =
    r.run.status !== "SUCCEEDED"
      ? `❌ the run ${r.run.status.toLowerCase()}`
      : code === 99
        ? "❌ failed its thresholds or gates"
        : c
          ? `✅ passed${inconclusive ? ` (${inconclusive} rule${inconclusive === 1 ? "" : "s"} inconclusive)` : ""}`
          : "✅ passed (no comparison)";
  const title = r.run.target && r.run.workload ? `${r.run.target.name} / ${r.run.workload.name}` : i.seriesKey;
  const lines = [commentMarker(i.seriesKey), `### opsbench: ${title} ${outcome}`, ""];
  if (r.run.error) lines.push(`Run error: ${cell(r.run.error)}`, "");
  lines.push(metricLine(i), "");
  if (c?.results.length) {
    lines.push("| rule | verdict | change |", "|---|---|---|");
    const icon = { fail: "❌ fail", pass: "✅ pass", inconclusive: "➖ inconclusive", "no-verdict": "➖ no verdict" } as const;
    for (const g of c.results) lines.push(`| \`${cell(g.rule.text)}\` | ${icon[g.outcome]} | ${cell(g.message)} |`);
    lines.push("");
  }
  const failedThresholds = r.run.thresholds.filter((t) => !t.ok);
  if (failedThresholds.length)
    lines.push(`k6 thresholds failed: ${failedThresholds.map((t) => `\`${cell(t.metric)}: ${cell(t.expression)}\``).join(", ")}`, "");
  const cost = costLine(i);
  if (cost) lines.push(cost, "");
  if (c && i.history)
    lines.push(`Baseline: the last ${c.baselineIds.length} succeeded runs of series \`${i.seriesKey}\` on \`${i.history.branch}\`.`, "");
  else if (c)
    lines.push(
      `Baseline: run \`${c.baselineId.slice(0, 8)}\`${c.baselineIds.length > 1 ? ` and the ${c.baselineIds.length - 1} runs before it` : ""}.`,
      "",
    );
  else if (r.noBaseline) lines.push(`${cell(r.noBaseline.message)}.`, "");
  const commit = i.commit ? ` for commit \`${i.commit.slice(0, 7)}\`` : "";
  lines.push(
    `${i.link.shared ? `[Open the comparison](${i.link.url}) (a read-only share link)` : `[Open run \`${r.run.id.slice(0, 8)}\`](${i.link.url})`}${c && !i.link.shared ? ` · [comparison](${c.url})` : ""}`,
    "",
    `<sub>opsbench${commit}; this comment is updated on each push.</sub>`,
  );
  return `${lines.join("\n")}\n`;
}

/**
 * Posts or updates the comment; every failure is a GitHub Actions warning on stderr, never an exit code. Returns
 * the body it sent (or null), for `--pr-comment-file` and the tests.
 */
export async function postPrComment(
  remote: Remote,
  input: Omit<CommentInput, "link">,
  prFlag: number | undefined,
  say: (m: string) => void,
  env: Env = process.env,
): Promise<string | null> {
  const t = githubTargetOf(env, prFlag);
  if (typeof t === "string") {
    say(`no pull-request comment: ${t}`);
    return null;
  }
  const link = await commentLink(remote, input.report, t, say);
  const body = prCommentBody({ ...input, link });
  try {
    const done = await upsertPrComment(t, commentMarker(input.seriesKey), body);
    say(`pull-request comment ${done.action} on ${t.owner}/${t.repo}#${t.pr}${done.url ? `: ${done.url}` : ""}`);
  } catch (err) {
    say(`::warning::opsbench could not comment on pull request #${t.pr}: ${(err as Error).message}`);
  }
  return body;
}
