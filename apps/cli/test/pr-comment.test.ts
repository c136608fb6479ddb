// CI with history and the pull-request comment (issue 36). The gate's baseline side is the series' last N succeeded
// runs on the baseline branch (a feature branch's runs are not in it), and `--pr-comment` posts the outcome on the pull
// request through GitHub's REST API, here a stand-in on loopback that answers as GitHub documents
// (fixtures/github/), checks the token, and pages its list with a Link header: the first push POSTs one comment with
// the marker, the next PATCHes that same comment, a public repository gets a share link that answers, a private one
// the run's page, and GitHub's 500 is a warning with exit 0.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { seededRandom } from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOpsbenchWith } from "../../../tests/helpers";
import { importK6Requests, type WrittenRequest } from "../../../tests/k6-result-files";
import { startSignedInWeb } from "../../../tests/test-identity";
import { startGitHubStandIn } from "./github-stand-in";

const { web, owner } = await startSignedInWeb();
const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-pr-comment-"));
const T0 = Date.UTC(2026, 10, 20, 6, 0, 0);
const GITHUB_TOKEN = "ghs_standInToken0123456789";

/** 60 s at 10 req/s, latencies uniform over [50, 150) ms times `slower`, all successful. */
function requests(seed: number, slower = 1): WrittenRequest[] {
  const rand = seededRandom(seed);
  return Array.from({ length: 600 }, (_, i) => ({ atMs: i * 100, ms: (50 + 100 * rand()) * slower, ok: true }));
}

// The GitHub stand-in: issue comments of acme/shop, as GitHub's REST API answers them (github-stand-in.ts).
const github = await startGitHubStandIn({ token: GITHUB_TOKEN });
const { seen, comments, comment } = github;
const githubUrl = github.url;
afterAll(github.close);

/** A pull_request event's payload as the runner writes it to GITHUB_EVENT_PATH (the fields the CLI reads). */
function event(pr: number, isPrivate: boolean): string {
  const file = path.join(dir, `event-${pr}-${isPrivate}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      action: "synchronize",
      number: pr,
      pull_request: { number: pr, head: { ref: "feature/faster" }, base: { ref: "main" } },
      repository: { full_name: "acme/shop", private: isPrivate, default_branch: "main" },
    }),
  );
  return file;
}

const remote = {
  OPSBENCH_URL: web,
  OPSBENCH_TOKEN: owner.token,
  DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none",
  OPSBENCH_RETRY_FOR: "0",
};
const githubEnv = (pr: number, isPrivate: boolean) => ({
  ...remote,
  GITHUB_TOKEN,
  GITHUB_REPOSITORY: "acme/shop",
  GITHUB_API_URL: githubUrl,
  GITHUB_EVENT_PATH: event(pr, isPrivate),
  GITHUB_BASE_REF: "main",
});

const ids: Record<string, string> = {};
const seriesArgs = (branch: string, commit: string) => ["--series", "prc-svc", "--branch", branch, "--commit", commit];

beforeAll(async () => {
  // The series in time order: runs on main with one of another feature branch among them (not the baseline's), then
  // the pull request's run.
  const plan: Array<[key: string, branch: string, seed: number]> = [
    ["main1", "main", 1],
    ["main2", "main", 2],
    ["other", "feature/other", 3],
    ["main3", "main", 4],
    ["candidate", "feature/faster", 5],
  ];
  for (const [i, [key, branch, seed]] of plan.entries())
    ids[key] = await importK6Requests(dir, `prc-${key}`, requests(seed), {
      t0: T0 + i * 3_600_000,
      importArgs: seriesArgs(branch, `${String(i + 1).repeat(7)}abcdef`),
    });
  // A series with a single main run: no baseline yet.
  ids.lonely = await importK6Requests(dir, "prc-lonely", requests(6), { t0: T0, importArgs: ["--series", "prc-new", "--branch", "main"] });
  ids.lonelyCandidate = await importK6Requests(dir, "prc-lonely-c", requests(7), {
    t0: T0 + 3_600_000,
    importArgs: ["--series", "prc-new", "--branch", "feature/faster"],
  });
  // Someone else's comments on the pull requests, enough for the list to take two pages.
  for (const pr of [7, 8])
    comments.set(pr, [comment(pr, "Looks good to me", "octocat"), comment(pr, "CI is green", "hubot"), comment(pr, "Thanks!", "octocat")]);
}, 180_000);

interface GateJson {
  noBaseline?: string;
  comparison?: { baselineIds: string[]; samples: { baseline: number; candidate: number; scope: string } | null };
}

describe("--baseline-runs N on history: the series' last N runs on the baseline branch", () => {
  it("takes the main runs, newest first, and leaves out a feature branch's run and the candidate", async () => {
    const r = await runOpsbenchWith(
      { ...remote, GITHUB_BASE_REF: "main" },
      ...["compare", ids.candidate!, "--baseline-runs", "5", "--fail-on", "p95 > +10%", "--json"],
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as GateJson;
    expect(out.comparison?.baselineIds).toEqual([ids.main3, ids.main2, ids.main1]);
    expect(out.comparison?.baselineIds).not.toContain(ids.other);
    expect(out.comparison?.samples?.baseline).toBe(3);
    expect(r.stderr).toContain(
      "the last 3 succeeded runs of series prc-svc on branch main (GITHUB_BASE_REF) (--baseline-runs 5: found only 3)",
    );
  });

  it("--baseline-branch names another branch; fewer than 2 runs there is no baseline yet (--if-no-baseline)", async () => {
    const other = await runOpsbenchWith(
      remote,
      "compare",
      ids.candidate!,
      "--baseline-runs",
      "3",
      "--baseline-branch",
      "feature/other",
      "--json",
    );
    expect(other.code, other.stderr).toBe(0);
    expect((JSON.parse(other.stdout) as GateJson).noBaseline).toBe(
      "no baseline yet for series prc-svc on branch feature/other: only 1 succeeded run there (--baseline-runs needs 2)",
    );
    const lonely = await runOpsbenchWith(remote, "compare", ids.lonelyCandidate!, "--baseline-runs", "3", "--if-no-baseline", "fail");
    expect(lonely.code).toBe(2);
    expect(lonely.stderr).toContain("no baseline yet for series prc-new on branch main: only 1 succeeded run there");
    // A run id keeps the marks' history: --baseline-branch does not go with it.
    const mixed = await runOpsbenchWith(
      remote,
      "compare",
      ids.candidate!,
      "--baseline",
      ids.main3!,
      "--baseline-runs",
      "3",
      "--baseline-branch",
      "main",
    );
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain("--baseline-branch goes with --baseline-runs N");
  });
});

describe("opsbench compare --pr-comment against a GitHub API stand-in", () => {
  const gate = ["compare", "--baseline-runs", "3", "--fail-on", "p95 > +10%", "--fail-on", "goodput < -1pp", "--pr-comment"];
  const args = (id: string) => [gate[0]!, id, ...gate.slice(1)];
  const ours = (pr: number) => (comments.get(pr) ?? []).filter((c) => String(c.body).includes("<!-- opsbench:prc-svc -->"));
  let firstId = 0;

  it("first push: pages through the comments, finds none of its own, POSTs one with the marker and the parts", async () => {
    seen.length = 0;
    const r = await runOpsbenchWith(githubEnv(7, true), ...args(ids.candidate!));
    expect(r.code, r.stderr).toBe(0);
    expect(seen.every((s) => s.authorization === `Bearer ${GITHUB_TOKEN}`)).toBe(true);
    // The list was read page by page (the Link header's next) before posting.
    const listed = seen.filter((s) => s.method === "GET");
    expect(listed.map((s) => s.query.get("page") ?? "1")).toEqual(["1", "2"]);
    expect(listed[0]!.query.get("per_page")).toBe("100");
    const posts = seen.filter((s) => s.method === "POST");
    expect(posts).toHaveLength(1);
    expect(posts[0]!.path).toBe("/repos/acme/shop/issues/7/comments");
    expect(seen.some((s) => s.method === "PATCH")).toBe(false);
    const body = posts[0]!.body!.body!;
    expect(body.startsWith("<!-- opsbench:prc-svc -->\n")).toBe(true);
    expect(body).toMatch(
      /p95 latency \(successful responses\): \*\*[\d.]+ ms\*\* vs [\d.]+ ms \(baseline\), ratio \*\*×[\d.]+\*\* \(95% interval ×[\d.]+ to ×[\d.]+\)/,
    );
    expect(body).toContain("| `p95 > +10%` |");
    expect(body).toContain("| `goodput < -1pp` |");
    expect(body).toContain("Baseline: the last 3 succeeded runs of series `prc-svc` on `main`.");
    // A private repository: the run's page, not a share link.
    expect(body).toContain(`[Open run \`${ids.candidate!.slice(0, 8)}\`](${web}/runs/${ids.candidate})`);
    expect(body).not.toContain("/share/");
    expect(r.stderr).toContain("pull-request comment created on acme/shop#7: https://github.com/acme/shop/pull/7#issuecomment-");
    expect(ours(7)).toHaveLength(1);
    firstId = ours(7)[0]!.id as number;
    // The docs' example (docs/ci.md) is this body.
    writeFileSync(path.join(os.tmpdir(), "opsbench-pr-comment-example.md"), body);
  });

  it("second push: PATCHes the same comment, posts none", async () => {
    seen.length = 0;
    const r = await runOpsbenchWith(githubEnv(7, true), ...args(ids.candidate!));
    expect(r.code, r.stderr).toBe(0);
    expect(seen.filter((s) => s.method === "POST")).toHaveLength(0);
    const patches = seen.filter((s) => s.method === "PATCH");
    expect(patches.map((s) => s.path)).toEqual([`/repos/acme/shop/issues/comments/${firstId}`]);
    expect(patches[0]!.body!.body).toContain("<!-- opsbench:prc-svc -->");
    expect(ours(7)).toHaveLength(1);
    expect(comments.get(7)).toHaveLength(4);
    // Ours is on the second page: found there by following the Link header.
    expect(seen.filter((s) => s.method === "GET").map((s) => s.query.get("page") ?? "1")).toEqual(["1", "2"]);
    expect(r.stderr).toContain(`pull-request comment updated on acme/shop#7`);
  });

  it("a public repository: the comment links a read-only share link of the comparison, which answers", async () => {
    seen.length = 0;
    const r = await runOpsbenchWith(githubEnv(8, false), ...args(ids.candidate!));
    expect(r.code, r.stderr).toBe(0);
    const body = seen.find((s) => s.method === "POST")!.body!.body!;
    const link = /\[Open the comparison\]\((\S+)\) \(a read-only share link\)/.exec(body)?.[1];
    expect(link, body).toBeDefined();
    expect(link!.startsWith(`${web}/share/`)).toBe(true);
    expect(body).not.toContain(`${web}/runs/`);
    const token = link!.slice(`${web}/share/`.length);
    // Anyone with the link, no token: the comparison of the baseline runs and the pull request's run.
    const shared = await fetch(`${web}/api/v1/public/shares/${token}`);
    expect(shared.status).toBe(200);
    expect(((await shared.json()) as { kind: string }).kind).toBe("comparison");
    expect((await fetch(link!)).status).toBe(200);
    // It expires: made read-only with an expiry about 90 days out.
    const list = (await (await fetch(`${web}/api/v1/shares`, { headers: { authorization: `Bearer ${owner.token}` } })).json()) as
      | Array<{ title: string | null; expiresAt: string | null }>
      | { items: Array<{ title: string | null; expiresAt: string | null }> };
    const items = Array.isArray(list) ? list : list.items;
    const made = items.find((s) => s.title === "acme/shop#8");
    expect(made?.expiresAt).not.toBeNull();
    const days = (Date.parse(made!.expiresAt!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89);
    expect(days).toBeLessThan(91);
  });

  it("GitHub answering 500 is a warning and exit 0; so is a token GitHub refuses", async () => {
    github.state.failing = true;
    try {
      const r = await runOpsbenchWith(githubEnv(7, true), ...args(ids.candidate!));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/::warning::opsbench could not comment on pull request #7: GET \S+ answered 500: Server Error/);
    } finally {
      github.state.failing = false;
    }
    const refused = await runOpsbenchWith({ ...githubEnv(7, true), GITHUB_TOKEN: "ghs_wrong" }, ...args(ids.candidate!));
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stderr).toContain("answered 401: Bad credentials");
    expect(ours(7)).toHaveLength(1);
  });
});
