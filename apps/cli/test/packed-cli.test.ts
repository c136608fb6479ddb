// The CLI anyone installs (issues 24 and 37), made by the release's own commands (scripts/release.mjs, as
// .github/workflows/release.yml runs them): the CLI packed into the Action's dist/ with its sha512, and the engine for
// linux/amd64. The web app serves that tarball at /cli/opsbench-cli.tgz; `npm install` of the served file puts it
// into an empty folder (no monorepo, no Prisma, no database client), and that folder's `opsbench` works against a
// server with only OPSBENCH_URL and OPSBENCH_TOKEN, with the documented exit codes (0, 99, 1, 2). Then the Action:
// from an empty folder holding a workflow file and a k6 script, its steps run as GitHub's runner runs them gate a
// pull request's change (a comment to the GitHub stand-in, then its update; annotations and outputs), and a SIGTERM
// mid-run ends the run ABORTED with the host's load lock free within 10 s.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { queuePrefix } from "@opsbench/jobs";
import { Redis } from "ioredis";
import { parse as parseJunit } from "junit2json";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { LoadLock } from "../../worker/src/load-lock";
import { fileServices, useWeb } from "../../../tests/file-services";
import { launchBrowser, shortRamp, taewaTarget } from "../../../tests/helpers";
import { createTestIdentity } from "../../../tests/test-identity";
import { runCompositeAction, substitute } from "./action-runner";
import { startGitHubStandIn } from "./github-stand-in";

const repo = path.resolve(import.meta.dirname, "../../..");
const work = mkdtempSync(path.join(os.tmpdir(), "opsbench-packed-"));
const release = (...args: string[]) =>
  execFileSync(process.execPath, [path.join(repo, "scripts/release.mjs"), ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
// The Action's folder as a release tag holds it: action.yml, and dist/ as `release.mjs prepare` writes it.
const actionDir = path.join(work, "opsbench-action");
mkdirSync(actionDir);
cpSync(path.join(repo, ".github/actions/opsbench/action.yml"), path.join(actionDir, "action.yml"));
const tarball = release("action-dist", "--action-dir", actionDir).trim();
const cliVersion = JSON.parse(readFileSync(path.join(repo, "apps/cli/package.json"), "utf8")).version as string;
const engineDir = path.join(work, "engine");
const engineBuilt = release("engine", "--platforms", "linux/amd64", "--out", engineDir).trim().split("\n");

// The web app serves the release's tarball (as the web image serves the one its build packed).
const web = await useWeb({ auth: "required", env: { OPSBENCH_CLI_TARBALL: tarball } });
const owner = await createTestIdentity(fileServices().databaseUrl);
const auth = { authorization: `Bearer ${owner.token}` };

const served = await fetch(`${web}/cli/opsbench-cli.tgz`);
const servedBytes = Buffer.from(await served.arrayBuffer());
const servedFile = path.join(work, "served-opsbench-cli.tgz");
writeFileSync(servedFile, servedBytes);
const project = path.join(work, "project");
mkdirSync(project);
writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "a-team-project", private: true }));
// --offline: the tarball has no dependencies to fetch.
execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", servedFile], { cwd: project, stdio: "ignore" });

/** The installed `opsbench`, from the project folder, with nothing of this repository's environment. */
export function installed(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(path.join(project, "node_modules/.bin/opsbench"), args, {
      cwd: project,
      env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
const remote = { OPSBENCH_URL: web, OPSBENCH_TOKEN: owner.token };
let scriptRunId = "";
let gatedRunId = "";

/** A k6 project as a team keeps it: a module, a CSV read with open() into a SharedArray, handleSummary() writing files. */
function writeK6Project(dir: string) {
  const put = (name: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  };
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the k6 module's own template string
  put("lib/paths.js", "export const pathFor = (user) => `/?n=500&user=${encodeURIComponent(user)}`;\n");
  put("data/users.csv", "name\nann\nbob\ncarol\n");
  put(
    "load/test.js",
    `import http from "k6/http";
import { check, sleep } from "k6";
import { SharedArray } from "k6/data";
import { pathFor } from "../lib/paths.js";

const users = new SharedArray("users", () => open("../data/users.csv").split("\\n").slice(1).filter(Boolean));

// 35 s: the verdict engine judges a single run a side over at least 30 s of per-second data. A pause after each
// request, as a person's think time (the tests' shortRamp does the same): the gate needs a run, not a saturated machine.
export const options = { vus: 2, duration: "35s", thresholds: { checks: ["rate>0.9"] } };

export default function () {
  const res = http.get(\`\${__ENV.OPSBENCH_BASE_URL}\${pathFor(users[__ITER % users.length])}\`);
  check(res, { "status 200": (r) => r.status === 200 });
  sleep(0.1);
}

export function handleSummary(data) {
  return {
    "summary.json": JSON.stringify({ users: users.length, checks: data.metrics.checks.values.passes }),
    "users.txt": users.join(","),
  };
}
`,
  );
}

async function create(route: string, body: unknown) {
  const res = await fetch(`${web}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...auth },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

describe("the packed CLI, installed into an empty folder", () => {
  it("holds one package and no database client, queue or monorepo module", () => {
    expect(readdirSync(path.join(project, "node_modules")).filter((n) => !n.startsWith("."))).toEqual(["@opsbench"]);
    expect(readdirSync(path.join(project, "node_modules/@opsbench"))).toEqual(["cli"]);
    expect(existsSync(path.join(project, "node_modules/@prisma"))).toBe(false);
  });

  it("carries its licence (Apache-2.0: LICENSE and NOTICE in the tarball), answers --version and each command's --help", async () => {
    const listed = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n");
    expect(listed).toEqual(
      expect.arrayContaining(["package/LICENSE", "package/NOTICE", "package/package.json", "package/bin/opsbench.mjs"]),
    );
    const installedDir = path.join(project, "node_modules/@opsbench/cli");
    expect(readFileSync(path.join(installedDir, "LICENSE"), "utf8")).toContain("Apache License");
    expect(JSON.parse(readFileSync(path.join(installedDir, "package.json"), "utf8")).license).toBe("Apache-2.0");
    const version = await installed({}, "--version");
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../package.json"), "utf8")).version);
    // Help needs no server: no OPSBENCH_URL here.
    const help = await installed({ NO_COLOR: "1" }, "run", "--help");
    expect(help.code, help.stderr).toBe(0);
    for (const flag of ["--target", "--script", "--baseline", "--fail-on", "--if-no-baseline", "--junit", "--external"])
      expect(help.stdout).toContain(flag);
    expect(help.stdout).not.toContain("opsbench ingest --run ID [--url BASE]");
    expect(help.stdout).not.toContain("\u001b");
    const compareHelp = await installed({}, "compare", "--help");
    expect(compareHelp.code).toBe(0);
    expect(compareHelp.stdout).toContain("opsbench compare RUN_ID");
  });

  it("runs a saved workload on the server with only OPSBENCH_URL and OPSBENCH_TOKEN: 0, and 99 when thresholds fail", async () => {
    await create("/api/v1/targets", taewaTarget("packed-taewa", { replicas: 1 }));
    await create("/api/v1/workloads", shortRamp("packed-ok", { vus: 2, holdSeconds: 2 }));
    await create(
      "/api/v1/workloads",
      shortRamp("packed-failing", { vus: 2, holdSeconds: 2, thresholds: { http_req_duration: ["p(95)<0.001"] } }),
    );
    const ok = await installed(remote, "run", "--target", "packed-taewa", "--workload", "packed-ok", "--json");
    expect(ok.code, ok.stderr).toBe(0);
    const summary = JSON.parse(ok.stdout) as { id: string; status: string; requests: number };
    expect(summary.status).toBe("SUCCEEDED");
    expect(summary.requests).toBeGreaterThan(0);
    const failing = await installed(remote, "run", "--target", "packed-taewa", "--workload", "packed-failing", "--json");
    expect(failing.code, failing.stderr).toBe(99);
    const shown = await installed(remote, "runs", "show", summary.id, "--json");
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout).requests).toBe(summary.requests);
  });

  it("runs a k6 project from the repository (a module, a CSV data file) and keeps what handleSummary() wrote", async () => {
    writeK6Project(project);
    await create("/api/v1/targets", taewaTarget("packed-script-taewa", { replicas: 1 }));
    const ran = await installed(remote, "run", "--target", "packed-script-taewa", "--script", "load/test.js", "--json");
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain("2 file(s) beside it");
    const summary = JSON.parse(ran.stdout) as { id: string; status: string; requests: number };
    expect(summary.requests).toBeGreaterThan(0);
    scriptRunId = summary.id;
    // Saved as a workload (load.test.js) holding the module and the CSV.
    const workloads = (await (await fetch(`${web}/api/v1/workloads`, { headers: auth })).json()) as Array<{
      name: string;
      spec: { entry?: string; files?: Record<string, string> };
    }>;
    const saved = workloads.find((w) => w.name === "load.test.js");
    expect(saved?.spec.entry).toBe("load/test.js");
    expect(Object.keys(saved?.spec.files ?? {}).sort()).toEqual(["data/users.csv", "lib/paths.js"]);
    // handleSummary()'s files: listed and downloadable, with what the script read from the CSV.
    const listed = (await (await fetch(`${web}/api/v1/runs/${summary.id}/artifacts`, { headers: auth })).json()) as Array<{ name: string }>;
    expect(listed.map((a) => a.name)).toEqual(["summary.json", "users.txt"]);
    const file = await fetch(`${web}/api/v1/runs/${summary.id}/artifacts/users.txt`, { headers: auth });
    expect(file.headers.get("content-disposition")).toContain("attachment");
    expect(await file.text()).toBe("ann,bob,carol");
    const kept = (await (await fetch(`${web}/api/v1/runs/${summary.id}/artifacts/summary.json`, { headers: auth })).json()) as {
      users: number;
      checks: number;
    };
    expect(kept.users).toBe(3);
    expect(kept.checks).toBeGreaterThan(0);
  });

  it("gates a second run on the baseline: JUnit and a step summary, 0 when the rules hold, 99 when one fails", async () => {
    const none = await installed(
      remote,
      "run",
      "--target",
      "packed-script-taewa",
      "--script",
      "load/test.js",
      "--baseline",
      "latest-baseline",
      "--if-no-baseline",
      "fail",
    );
    // No baseline yet, asked to fail: said before any load (the default, pass, is remote-resilience.test.ts's).
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("opsbench baseline set");
    const marked = await installed(remote, "baseline", "set", scriptRunId);
    expect(marked.code, marked.stderr).toBe(0);
    expect(marked.stdout).toContain("packed-script-taewa");

    const junit = path.join(work, "junit.xml");
    const stepSummary = path.join(work, "summary.md");
    const gated = await installed(
      remote,
      ...["run", "--target", "packed-script-taewa", "--script", "load/test.js", "--baseline", "latest-baseline"],
      // One run a side: judged between configurations only with a stated run-to-run CV (else every rule is inconclusive).
      ...["--fail-on", "p95 > +100000%", "--fail-on", "goodput < -50pp", "--run-cv", "10"],
      ...["--junit", junit, "--summary", stepSummary, "--json"],
    );
    expect(gated.code, gated.stderr).toBe(0);
    expect(gated.stderr).toContain(`/compare?g=baseline%3A${scriptRunId}`);
    const out = JSON.parse(gated.stdout) as { id: string; comparison: { baselineId: string; rules: Array<{ outcome: string }> } };
    expect(out.comparison.baselineId).toBe(scriptRunId);
    // Goodput is 100% on both sides: a verdict always. p95 has one when the engine finds enough independent seconds.
    const [p95, goodput] = out.comparison.rules.map((r) => r.outcome);
    expect(["pass", "inconclusive", "no-verdict"]).toContain(p95);
    expect(goodput).toBe("pass");
    type Junit = {
      failures?: number;
      testsuite?: Array<{ testcase?: Array<{ name?: string; failure?: Array<{ message?: string }> }> }>;
    };
    const report = (await parseJunit(readFileSync(junit, "utf8"))) as Junit;
    const cases = report.testsuite?.[0]?.testcase ?? [];
    expect(cases.map((c) => c.name)).toEqual([`run ${out.id}`, "checks: rate>0.9", "p95 > +100000%", "goodput < -50pp"]);
    expect(cases.filter((c) => c.failure)).toEqual([]);
    expect(readFileSync(stepSummary, "utf8")).toContain("| `goodput < -50pp` | ✅ pass |");

    // The same run against a rule it cannot meet (goodput up by at least 1pp from 100%): 99, and JUnit says which failed.
    const failing = path.join(work, "junit-failing.xml");
    const compared = await installed(
      remote,
      "compare",
      out.id,
      "--baseline",
      scriptRunId,
      "--fail-on",
      "goodput < +1pp",
      "--run-cv",
      "10",
      "--junit",
      failing,
    );
    expect(compared.code, compared.stderr).toBe(99);
    expect(compared.stderr).toContain("FAIL");
    const failed = (await parseJunit(readFileSync(failing, "utf8"))) as Junit;
    expect(failed.failures).toBe(1);
    const gate = failed.testsuite?.[0]?.testcase?.find((c) => c.name === "goodput < +1pp");
    expect(gate?.failure?.[0]?.message).toContain("beyond the limit");
    gatedRunId = out.id;
    const badRule = await installed(remote, "compare", out.id, "--baseline", scriptRunId, "--fail-on", "latency > 10%");
    expect(badRule.code).toBe(2);
    expect(badRule.stderr).toContain('unknown metric "latency"');
  });

  it("the run page lists the script's files and marks the run as the baseline (the button)", async () => {
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext();
      await context.addCookies([{ ...owner.sessionCookie, url: web }]);
      const page = await context.newPage();
      await page.goto(`${web}/runs/${gatedRunId}`);
      await expect.poll(() => page.getByTestId("run-artifacts").getByRole("link").allTextContents()).toEqual(["summary.json", "users.txt"]);
      await page.getByTestId("mark-baseline").click();
      await page.getByText("This run is the baseline").waitFor();
      const [b] = (await (await fetch(`${web}/api/v1/baselines?target=packed-script-taewa`, { headers: auth })).json()) as Array<{
        runId: string;
      }>;
      expect(b?.runId).toBe(gatedRunId);
    } finally {
      await browser.close();
    }
  });

  it("runs a `k6 archive` tar as it is (its module and CSV inside), its main script shown as the workload's source", async () => {
    mkdirSync(path.join(project, "short"), { recursive: true });
    writeFileSync(
      path.join(project, "short/test.js"),
      `import http from "k6/http";
import { SharedArray } from "k6/data";
import { pathFor } from "../lib/paths.js";
const users = new SharedArray("users", () => open("../data/users.csv").split("\\n").slice(1).filter(Boolean));
export const options = { vus: 1, duration: "2s" };
export default function () {
  http.get(\`\${__ENV.OPSBENCH_BASE_URL}\${pathFor(users[__ITER % users.length])}\`);
}
`,
    );
    // The archive as a team's CI makes it with its own k6 (`k6 archive`): metadata.json naming the main script by its
    // absolute path, the script as "data", and its module and data file under file/ at their absolute paths.
    k6Archive(project, "short.tar", "short/test.js", ["lib/paths.js", "data/users.csv"]);
    const ran = await installed(remote, "run", "--target", "packed-script-taewa", "--script", "short.tar", "--json");
    expect(ran.code, ran.stderr).toBe(0);
    expect((JSON.parse(ran.stdout) as { requests: number }).requests).toBeGreaterThan(0);
    const workloads = (await (await fetch(`${web}/api/v1/workloads`, { headers: auth })).json()) as Array<{
      name: string;
      spec: { entry?: string; source: string; files?: Record<string, string> };
    }>;
    const saved = workloads.find((w) => w.name === "short.tar");
    expect(saved?.spec.entry).toBe("archive.tar");
    expect(Object.keys(saved?.spec.files ?? {})).toEqual(["archive.tar"]);
    expect(saved?.spec.source).toContain('import { pathFor } from "../lib/paths.js"');
    writeFileSync(path.join(project, "not-an-archive.tar"), "plain text");
    const notTar = await installed(remote, "run", "--target", "packed-script-taewa", "--script", "not-an-archive.tar");
    expect(notTar.code).toBe(2);
    expect(notTar.stderr).toContain("not a k6 archive");
  });

  it("refuses a script whose module is missing (2, nothing saved) and one k6 cannot read (2, k6's message)", async () => {
    mkdirSync(path.join(project, "broken"), { recursive: true });
    writeFileSync(path.join(project, "broken/missing.js"), 'import { x } from "./nowhere.js";\nexport default function () {}\n');
    const missing = await installed(remote, "run", "--target", "packed-script-taewa", "--script", "broken/missing.js");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('"./nowhere.js"');
    writeFileSync(path.join(project, "broken/bad.js"), "export default function () {\n  syntax error here\n}\n");
    const bad = await installed(remote, "run", "--target", "packed-script-taewa", "--script", "broken/bad.js");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("spec.source");
    const names = ((await (await fetch(`${web}/api/v1/workloads`, { headers: auth })).json()) as Array<{ name: string }>).map(
      (w) => w.name,
    );
    expect(names).not.toContain("broken.missing.js");
    expect(names).not.toContain("broken.bad.js");
  });

  it("imports a k6 result file as a run on the server", async () => {
    const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
    const lines = [0, 400, 1300].map((ms, i) =>
      JSON.stringify({
        metric: "http_req_duration",
        type: "Point",
        data: { time: new Date(t0 + ms).toISOString(), value: 10 + i, tags: { name: "home", status: "200" } },
      }),
    );
    writeFileSync(path.join(project, "result.json"), `${lines.join("\n")}\n`);
    const imported = await installed(remote, "import", "k6", "result.json", "--name", "from-ci", "--json");
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ requests: 3, source: "k6-import" });
    writeFileSync(path.join(project, "notes.txt"), "hello\n");
    const notK6 = await installed(remote, "import", "k6", "notes.txt");
    expect(notK6.code).toBe(2);
    expect(notK6.stderr).toContain("is not a k6 result file");
  });

  it("exits 2 for bad input (unknown name, no server set, a local-only command) and 1 for a refused token", async () => {
    const unknown = await installed(remote, "run", "--target", "packed-nope", "--workload", "packed-ok");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("packed-nope");
    const unset = await installed({}, "runs", "show", "x");
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain("OPSBENCH_URL");
    const local = await installed(remote, "demo");
    expect(local.code).toBe(2);
    expect(local.stderr).toContain("opsbench repository");
    const bad = await installed({ ...remote, OPSBENCH_TOKEN: "obk_not-a-token" }, "runs", "show", "00000000-0000-0000-0000-000000000000");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("401");
  });
});

describe("the release's artefacts, made by scripts/release.mjs", () => {
  it("the CLI is publishable (not private), carries LICENSE, and the server serves the release's bytes with their sha512", () => {
    // `git grep` exits 1 when nothing matches: no package manifest under apps/cli is private.
    const grep = spawnSync("git", ["grep", "-l", '"private": true', "--", "apps/cli/*package.json"], { cwd: repo, encoding: "utf8" });
    expect(grep.status, grep.stdout).toBe(1);
    expect(execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n")).toContain("package/LICENSE");
    const integrity = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
    expect(readFileSync(`${tarball}.sha512`, "utf8").trim()).toBe(integrity);
    expect(served.status).toBe(200);
    expect(served.headers.get("x-opsbench-integrity")).toBe(integrity);
    expect(servedBytes.equals(readFileSync(tarball))).toBe(true);
  });

  it("the engine for linux/amd64 is a static binary that runs, listed in SHA256SUMS", () => {
    const [binary, sums] = engineBuilt as [string, string];
    expect(path.basename(binary)).toBe(`opsbench-engine-${cliVersion}-linux-amd64`);
    expect(execFileSync(binary, ["version"], { encoding: "utf8" })).toContain(`opsbench-engine v${cliVersion}`);
    // CGO_ENABLED=0: no interpreter, so it runs on any Linux (Alpine's musl included).
    expect(execFileSync("file", [binary], { encoding: "utf8" })).toMatch(/statically linked/);
    expect(execFileSync("sha256sum", ["-c", path.basename(sums)], { cwd: engineDir, encoding: "utf8" })).toContain(": OK");
  });
});

describe("the Action at a release's ref, from an empty folder with a workflow and a k6 script", () => {
  const GITHUB_TOKEN = "ghs_actionStandInToken0123456789";
  const folder = path.join(work, "team-repo");
  const npmPrefix = path.join(work, "npm-global");
  const summaryFile = path.join(work, "step-summary.md");
  const eventFile = path.join(work, "event.json");
  // A pull request's workflow as a team writes it (docs/ci.md), the Action referenced by the path a release has.
  const workflow = `name: load test
on: pull_request
permissions:
  contents: read
  pull-requests: write
jobs:
  opsbench:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: opsbench/opsbench/.github/actions/opsbench@v1
        id: opsbench
        with:
          url: \${{ vars.OPSBENCH_URL }}
          token: \${{ secrets.OPSBENCH_TOKEN }}
          target: action-taewa
          script: load/test.js
          workload: action-check
          baseline: latest-baseline
          fail-on-inconclusive: "true"
          fail-on: |
            p95 > +10%
            goodput < -1pp
`;
  const script = (duration: string) => `import http from "k6/http";
import { check, sleep } from "k6";
export const options = { vus: 2, duration: "${duration}", thresholds: { checks: ["rate>0.9"] } };
export default function () {
  check(http.get(\`\${__ENV.OPSBENCH_BASE_URL}/?n=200\`), { "status 200": (r) => r.status === 200 });
  sleep(0.1);
}
`;
  let github: Awaited<ReturnType<typeof startGitHubStandIn>>;
  afterAll(() => github?.close());

  /** The Action as the runner runs the workflow's step: its `with:` from the file, GitHub's variables around it. */
  function runAction() {
    const file = parseYaml(readFileSync(path.join(folder, ".github/workflows/x.yml"), "utf8")) as {
      jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, string> }> }>;
    };
    const step = file.jobs.opsbench!.steps.find((s) => s.uses?.endsWith("/.github/actions/opsbench@v1"));
    const contexts = { vars: { OPSBENCH_URL: web }, secrets: { OPSBENCH_TOKEN: owner.token } };
    const inputs = Object.fromEntries(Object.entries(step!.with ?? {}).map(([k, v]) => [k, substitute(String(v), contexts)]));
    return runCompositeAction(actionDir, {
      inputs,
      cwd: folder,
      github: { event_name: "pull_request", token: GITHUB_TOKEN, repository: "acme/shop", workspace: folder },
      env: {
        PATH: `${path.join(npmPrefix, "bin")}:${process.env.PATH}`,
        HOME: work,
        npm_config_prefix: npmPrefix,
        npm_config_cache: path.join(work, "npm-cache"),
        RUNNER_TEMP: work,
        GITHUB_ACTIONS: "true",
        GITHUB_EVENT_NAME: "pull_request",
        GITHUB_EVENT_PATH: eventFile,
        GITHUB_STEP_SUMMARY: summaryFile,
        GITHUB_REPOSITORY: "acme/shop",
        GITHUB_API_URL: github.url,
        GITHUB_SERVER_URL: "https://github.com",
        GITHUB_RUN_ID: "4242",
        GITHUB_SHA: "5555555abcdef0123456789",
        GITHUB_REF: "refs/pull/7/merge",
        GITHUB_HEAD_REF: "feature/faster",
        GITHUB_BASE_REF: "main",
        GITHUB_WORKSPACE: folder,
      },
    });
  }
  const ours = () => (github.comments.get(7) ?? []).filter((c) => String(c.body).startsWith("<!-- opsbench:"));

  it("first push: installs the CLI of its own ref, has no baseline yet (the run becomes it), comments once, sets outputs", async () => {
    github = await startGitHubStandIn({ token: GITHUB_TOKEN });
    mkdirSync(path.join(folder, ".github/workflows"), { recursive: true });
    mkdirSync(path.join(folder, "load"));
    writeFileSync(path.join(folder, ".github/workflows/x.yml"), workflow);
    writeFileSync(path.join(folder, "load/test.js"), script("4s"));
    writeFileSync(
      eventFile,
      JSON.stringify({
        action: "synchronize",
        number: 7,
        pull_request: { number: 7, head: { ref: "feature/faster" }, base: { ref: "main" } },
        repository: { full_name: "acme/shop", private: true, default_branch: "main" },
      }),
    );
    await create("/api/v1/targets", taewaTarget("action-taewa", { replicas: 1 }));
    const r = await runAction().done;
    expect(r.code, r.log).toBe(0);
    // The tarball at the action's ref, checked against its recorded sha512, installed without a registry.
    expect(r.log).toContain(`${path.join(actionDir, "dist/opsbench-cli.tgz")}: ${readFileSync(`${tarball}.sha512`, "utf8").trim()}`);
    expect(existsSync(path.join(npmPrefix, "bin/opsbench"))).toBe(true);
    expect(r.log).toMatch(/^::notice title=opsbench%3A no baseline yet::no baseline yet for workload action-check/m);
    expect(r.outputs.verdict).toBe("no-baseline");
    expect(r.outputs["run-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.outputs["run-url"]).toBe(`${web}/runs/${r.outputs["run-id"]}`);
    expect(github.seen.filter((x) => x.method === "POST").map((x) => x.path)).toEqual(["/repos/acme/shop/issues/7/comments"]);
    expect(ours()).toHaveLength(1);
    expect(readFileSync(summaryFile, "utf8")).toContain("### opsbench: action-taewa / action-check");
  });

  it("next push: compared with that baseline; the comment is updated, each rule not passed is annotated, outputs say so", async () => {
    github.seen.length = 0;
    const r = await runAction().done;
    expect([0, 99], r.log).toContain(r.code);
    expect(github.seen.filter((x) => x.method === "POST")).toHaveLength(0);
    expect(github.seen.filter((x) => x.method === "PATCH").map((x) => x.path)).toEqual([
      `/repos/acme/shop/issues/comments/${ours()[0]!.id}`,
    ]);
    expect(ours()).toHaveLength(1);
    // One run a side without a stated CV: no rule can pass, each is annotated (an error when it fails the job).
    const report = (await parseJunit(readFileSync(path.join(folder, "opsbench-junit.xml"), "utf8"))) as {
      testsuite?: Array<{ testcase?: Array<{ name?: string; failure?: unknown; skipped?: unknown }> }>;
    };
    const rules = (report.testsuite?.[0]?.testcase ?? []).filter((c) => c.name === "p95 > +10%" || c.name === "goodput < -1pp");
    expect(rules).toHaveLength(2);
    for (const c of rules) {
      const title = `opsbench gate ${c.name!.replace(/%/g, "%25")}%3A`;
      expect(r.log).toContain(`::${c.failure ? "error" : "warning"} title=${title}`);
    }
    expect(r.outputs.verdict).toBe(r.code === 99 ? "failed" : "inconclusive");
    expect(r.outputs["comparison-url"]).toContain(`${web}/compare?g=baseline%3A`);
  });

  it("a push cancelled mid-run (SIGTERM): the run ends ABORTED and the host's load lock is free within 10 s", async () => {
    writeFileSync(path.join(folder, "load/test.js"), script("10m"));
    const job = runAction();
    let log = "";
    const logged = job.done.then((r) => (log = r.log));
    const runView = async (id: string) => (await (await fetch(`${web}/api/v1/runs/${id}`, { headers: auth })).json()) as { status: string };
    let id = "";
    await expect
      .poll(
        async () => {
          const runs = (await (await fetch(`${web}/api/v1/runs`, { headers: auth })).json()) as Array<{ id: string; status: string }>;
          const running = runs.find((x) => x.status === "RUNNING");
          id = running?.id ?? "";
          return Boolean(running && job.current());
        },
        { timeout: 120_000, interval: 500 },
      )
      .toBe(true);
    const signalled = Date.now();
    job.current()!.kill("SIGTERM");
    const r = await job.done;
    await logged;
    expect(r.code, log).toBe(143);
    expect(r.log).toContain(`SIGTERM: aborting run ${id} on ${web}`);
    expect(r.log).toContain(`run ${id} aborted on ${web}`);
    await expect
      .poll(async () => (await runView(id)).status, { timeout: 10_000 - (Date.now() - signalled), interval: 250 })
      .toBe("ABORTED");
    // Free: another holder gets the lock within what is left of the 10 s.
    const redis = new Redis(fileServices().redisUrl);
    try {
      const lock = new LoadLock({ redis, prefix: queuePrefix(fileServices().redisUrl), host: `test-${fileServices().name}`, pollMs: 100 });
      const release = await lock.acquire(AbortSignal.timeout(Math.max(1, 10_000 - (Date.now() - signalled))));
      await release();
    } finally {
      redis.disconnect();
    }
  });
});

/** A tar in `k6 archive`'s layout (k6's docs: metadata.json, data, file/<absolute path>), made with tar(1). */
function k6Archive(project: string, out: string, entry: string, files: string[]) {
  const staging = mkdtempSync(path.join(os.tmpdir(), "opsbench-k6-archive-"));
  const main = path.join(project, entry);
  writeFileSync(
    path.join(staging, "metadata.json"),
    JSON.stringify({ filename: `file://${main}`, pwd: `file://${path.dirname(main)}/`, options: {}, type: "js" }),
  );
  writeFileSync(path.join(staging, "data"), readFileSync(main));
  for (const f of files) {
    const at = path.join(staging, "file", project, f);
    mkdirSync(path.dirname(at), { recursive: true });
    writeFileSync(at, readFileSync(path.join(project, f)));
  }
  execFileSync("tar", ["-cf", path.join(project, out), "-C", staging, "metadata.json", "data", "file"]);
}
