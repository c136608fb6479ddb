// The CLI against a running server with an API token (OPSBENCH_URL + OPSBENCH_TOKEN): the same output and
// exit codes as against the database, 99 when the run's thresholds fail.
// The web app runs with OPSBENCH_AUTH=required, so the token is what lets the CLI in.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runOpsbenchIn, runOpsbenchWith, shortRamp, taewaTarget } from "../../../tests/helpers";
import { startSignedInWeb } from "../../../tests/test-identity";

// A low cap on a script's files (the instance admin's OPSBENCH_MAX_SCRIPT_FILES_BYTES), for the refusal below.
const FILES_CAP = 300_000;
const { web, owner } = await startSignedInWeb({ OPSBENCH_MAX_SCRIPT_FILES_BYTES: String(FILES_CAP) });
const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-remote-"));
const file = (name: string, content: string) => {
  writeFileSync(path.join(dir, name), content);
  return path.join(dir, name);
};
const remote = { OPSBENCH_URL: web, OPSBENCH_TOKEN: owner.token, DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none" };

const auth = { authorization: `Bearer ${owner.token}` };

async function create(path: string, body: unknown) {
  const res = await fetch(`${web}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...auth },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
}

describe("opsbench against a server (OPSBENCH_URL + OPSBENCH_TOKEN)", () => {
  it("runs a benchmark through the API, shows it, and exits 99 when its thresholds fail", async () => {
    await create("/api/v1/targets", taewaTarget("remote-taewa", { replicas: 1 }));
    await create(
      "/api/v1/workloads",
      shortRamp("remote-failing", { vus: 2, holdSeconds: 2, thresholds: { http_req_duration: ["p(95)<0.001"] } }),
    );
    // DATABASE_URL points nowhere: everything goes through the server.
    const run = await runOpsbenchWith(remote, "run", "--target", "remote-taewa", "--workload", "remote-failing", "--json");
    expect(run.stderr).toContain("created on");
    expect(run.code).toBe(99);
    const summary = JSON.parse(run.stdout);
    expect(summary.status).toBe("SUCCEEDED");
    expect(summary.requests).toBeGreaterThan(0);
    const shown = await runOpsbenchWith(remote, "runs", "show", summary.id, "--json");
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout).requests).toBe(summary.requests);
  });

  it("exits 2 for an unknown target and 1 for a bad token, as it does locally", async () => {
    const unknown = await runOpsbenchWith(remote, "run", "--target", "remote-nope", "--workload", "remote-failing");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("remote-nope");
    const bad = await runOpsbenchWith(
      { ...remote, OPSBENCH_TOKEN: "obk_not-a-token" },
      "runs",
      "show",
      "00000000-0000-0000-0000-000000000000",
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("401");
  });
});

describe("a run's provenance from the CLI (issue 36)", () => {
  const SHA = "d6cd1e2bd19e03a81132a23b2025920577f84e37";
  // A GitHub Actions pull request job's variables (what the runner sets), none of the machine's own leaking in.
  const github = {
    GITHUB_ACTIONS: "true",
    GITHUB_SHA: SHA,
    GITHUB_REF: "refs/pull/314/merge",
    GITHUB_REF_NAME: "314/merge",
    GITHUB_HEAD_REF: "feature/cli",
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_REPOSITORY: "acme/shop",
    GITHUB_RUN_ID: "4242",
    GITLAB_CI: "",
  };
  const provenanceOf = async (id: string) =>
    ((await (await fetch(`${web}/api/v1/runs/${id}`, { headers: auth })).json()) as { provenance: unknown }).provenance;

  it("sends what GitHub's variables give with the --label flags, and a flag wins over the environment", async () => {
    await create("/api/v1/targets", taewaTarget("remote-prov-taewa", { replicas: 1 }));
    await create("/api/v1/workloads", shortRamp("remote-prov-load", { vus: 1, holdSeconds: 1 }));
    const run = await runOpsbenchWith(
      { ...remote, ...github },
      ...["run", "--target", "remote-prov-taewa", "--workload", "remote-prov-load", "--json"],
      ...["--label", "a=b", "--label", "suite=cli=remote", "--pr", "315", "--series", "remote-nightly"],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(await provenanceOf(JSON.parse(run.stdout).id)).toEqual({
      commit: SHA,
      branch: "feature/cli",
      pullRequest: 315,
      buildUrl: "https://github.com/acme/shop/actions/runs/4242",
      labels: { a: "b", suite: "cli=remote" },
      series: "remote-nightly",
    });
  });

  it("run --external sends it too; a bad flag is a usage error (2) naming the flag, with nothing made", async () => {
    const external = await runOpsbenchWith(
      { ...remote, ...github },
      ...["run", "--external", "--no-wait", "--branch", "release/1.2", "--commit", "ABCDEF12", "--label", "env=ci"],
    );
    expect(external.code, external.stderr).toBe(0);
    const id = /run ([0-9a-f-]{36}):/.exec(external.stderr)?.[1];
    expect(id, external.stderr).toBeDefined();
    expect(await provenanceOf(id!)).toEqual({
      commit: "abcdef12",
      branch: "release/1.2",
      pullRequest: 314,
      buildUrl: "https://github.com/acme/shop/actions/runs/4242",
      labels: { env: "ci" },
      series: null,
    });
    // No generator will feed it: ended here, so it holds no place among the workspace's runs under way.
    expect((await fetch(`${web}/api/v1/runs/${id}/abort`, { method: "POST", headers: auth })).status).toBe(200);

    const count = async () => ((await (await fetch(`${web}/api/v1/runs`, { headers: auth })).json()) as unknown[]).length;
    const before = await count();
    for (const [flag, value] of [
      ["--commit", "xyz"],
      ["--pr", "0"],
      ["--build-url", "ftp://ci.example.com/1"],
      ["--label", "no-equals"],
      ["--label", "bad key=v"],
      ["--series", "Not A Name"],
    ] as const) {
      const bad = await runOpsbenchWith(remote, "run", "--target", "remote-prov-taewa", "--workload", "remote-prov-load", flag, value);
      expect(bad.code, `${flag} ${value}: ${bad.stderr}`).toBe(2);
      expect(bad.stderr).toContain(`${flag}:`);
    }
    const badExternal = await runOpsbenchWith(remote, "run", "--external", "--no-wait", "--branch", "");
    expect(badExternal.code).toBe(2);
    expect(badExternal.stderr).toContain("--branch:");
    expect(await count()).toBe(before);
  });
});

describe("opsbench study run and import k6 against a server", () => {
  it("runs a study on the server's worker and exits 0; a bad file or an unknown name exits 2 with nothing made", async () => {
    await create("/api/v1/targets", taewaTarget("remote-study-taewa", { replicas: 1 }));
    await create("/api/v1/workloads", shortRamp("remote-study-load", { vus: 2, holdSeconds: 1 }));
    const study = file(
      "study.json",
      JSON.stringify({ name: "remote study", targets: ["remote-study-taewa"], workloads: ["remote-study-load"], repetitions: 1 }),
    );
    const ran = await runOpsbenchWith(remote, "study", "run", study, "--json");
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain("created on");
    const view = JSON.parse(ran.stdout) as { id: string; status: string; cells: Array<{ runs: unknown[] }> };
    expect(view.status).toBe("SUCCEEDED");
    expect(view.cells[0]?.runs).toHaveLength(1);

    const studies = async () => ((await (await fetch(`${web}/api/v1/studies`, { headers: auth })).json()) as unknown[]).length;
    const before = await studies();
    const unknown = await runOpsbenchWith(
      remote,
      "study",
      "run",
      file("unknown.json", JSON.stringify({ name: "u", targets: ["remote-nope"], workloads: ["remote-study-load"], repetitions: 1 })),
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("remote-nope");
    const bad = await runOpsbenchWith(remote, "study", "run", file("bad.json", JSON.stringify({ name: "b", targets: [], repetitions: 0 })));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/repetitions: /);
    expect(await studies()).toBe(before);
  });

  it("imports a k6 JSON file as a run on the server (exit 0), and refuses a file that is not k6's (exit 2)", async () => {
    const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
    const point = (ms: number, value: number) =>
      JSON.stringify({
        metric: "http_req_duration",
        type: "Point",
        data: { time: new Date(t0 + ms).toISOString(), value, tags: { name: "home", status: "200", expected_response: "true" } },
      });
    const k6File = file("result.json", [0, 300, 900, 1400, 2100].map((ms, i) => point(ms, 10 + i)).join("\n"));
    const imported = await runOpsbenchWith(remote, "import", "k6", k6File, "--name", "uploaded", "--json");
    expect(imported.code, imported.stderr).toBe(0);
    const out = JSON.parse(imported.stdout) as { id: string; requests: number; source: string };
    expect(out.requests).toBe(5);
    expect(out.source).toBe("k6-import");
    // The run is on the server, with the file's numbers: p50 of 10..14 ms.
    const run = (await (await fetch(`${web}/api/v1/runs/${out.id}`, { headers: auth })).json()) as {
      name: string;
      summary: { requests: number; latencyMs: { p50: number } };
    };
    expect(run.name).toBe("uploaded");
    expect(run.summary.requests).toBe(5);
    expect(run.summary.latencyMs.p50).toBeCloseTo(12, 0);

    const notK6 = await runOpsbenchWith(remote, "import", "k6", file("notes.txt", "hello\n"));
    expect(notK6.code).toBe(2);
    expect(notK6.stderr).toContain("is not a k6 result file");
  });
});

describe("scripts as teams write them (issue 37)", () => {
  // A repository as a team keeps it: two smoke tests of the same file name, a shared module, a data file.
  const repo = mkdtempSync(path.join(os.tmpdir(), "opsbench-repo-"));
  const put = (name: string, text: string) => {
    mkdirSync(path.dirname(path.join(repo, name)), { recursive: true });
    writeFileSync(path.join(repo, name), text);
  };
  mkdirSync(path.join(repo, ".git"));
  // The modules a CDN would serve (jslib.k6.io), from a loopback server only this test allows over http.
  const modules: Record<string, string> = {
    "/lib/greet.js": 'import { bang } from "./util.js";\nexport const greet = (n) => "hello " + n + bang();\n',
    "/lib/util.js": 'export const bang = () => "!";\n',
  };
  const moduleServer = createServer((req, res) => {
    const body = modules[req.url ?? ""];
    res.writeHead(body ? 200 : 404, { "content-type": "application/javascript" }).end(body ?? "not found");
  });
  const SECRET = "s3cr3t-value-42";
  const runView = async (id: string) =>
    (await (await fetch(`${web}/api/v1/runs/${id}`, { headers: auth })).json()) as {
      status: string;
      error: string | null;
      workload: { name: string } | null;
      checks: Array<{ name: string; passes: number; fails: number }>;
      scriptEnv: Array<{ key: string; value: string; secret: boolean }>;
    };
  const workloads = async () =>
    (await (await fetch(`${web}/api/v1/workloads`, { headers: auth })).json()) as Array<{
      id: string;
      name: string;
      spec: Record<string, unknown>;
    }>;
  const runCount = async () => ((await (await fetch(`${web}/api/v1/runs`, { headers: auth })).json()) as unknown[]).length;
  /** The CLI from inside the repository, as CI runs it. */
  const cli = (env: Record<string, string>, ...args: string[]) => runOpsbenchIn(repo, env, ...args);

  it("bundles an http(s) module, gives --env and a secret to __ENV, names the workload by its path, and renames the old one once", async () => {
    await new Promise<void>((resolve) => moduleServer.listen(0, "127.0.0.1", resolve));
    const host = `127.0.0.1:${(moduleServer.address() as AddressInfo).port}`;
    const env = { ...remote, OPSBENCH_HTTP_MODULE_HOSTS: host };
    put("lib/paths.js", 'export const pathFor = () => "/?n=200";\n');
    put(
      "tests/api/smoke.js",
      `import http from "k6/http";
import { check } from "k6";
import { greet } from "http://${host}/lib/greet.js";
import { pathFor } from "../../lib/paths.js";
export const options = { vus: 1, iterations: 3 };
export default function () {
  const res = http.get(__ENV.OPSBENCH_BASE_URL + pathFor());
  check(res, { "status 200": (r) => r.status === 200 });
  check(null, {
    "remote module": () => greet("ann") === "hello ann!",
    "env given": () => __ENV.GREETING === "hello world",
    "secret given": () => __ENV.API_TOKEN === "${SECRET}",
    "no worker env": () => __ENV.DATABASE_URL === undefined && __ENV.REDIS_URL === undefined && __ENV.OPSBENCH_SECRET_KEY === undefined,
  });
}
`,
    );
    await create("/api/v1/targets", taewaTarget("remote-scripts-taewa", { replicas: 1 }));
    // The secret: saved by the owner, answered back by name only, its value in no answer and no audit entry.
    const saved = await fetch(`${web}/api/v1/secrets`, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body: JSON.stringify({ name: "API_TOKEN", value: SECRET }),
    });
    expect(saved.status).toBe(201);
    const listed = await (await fetch(`${web}/api/v1/secrets`, { headers: auth })).text();
    expect(listed).toContain("API_TOKEN");
    expect(`${await saved.text()}${listed}`).not.toContain(SECRET);
    const audit = await (await fetch(`${web}/api/v1/audit`, { headers: auth })).text();
    expect(audit).toContain("secret.save");
    expect(audit).not.toContain(SECRET);
    // What the CLI before issue 37 saved this script as (its entry's path among its files): renamed once, kept.
    await create("/api/v1/workloads", shortRamp("script-tests-api-smoke.js", { vus: 1, holdSeconds: 1 }));
    const legacyId = (await workloads()).find((w) => w.name === "script-tests-api-smoke.js")!.id;

    const args = ["run", "--target", "remote-scripts-taewa", "--script", "tests/api/smoke.js", "--json"];
    const ran = await cli(env, ...args, "--env", "GREETING=hello world", "--secret", "API_TOKEN");
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain("renamed workload script-tests-api-smoke.js to tests.api.smoke.js");
    expect(ran.stderr).toContain(`bundled http://${host}/lib/greet.js`);
    const view = await runView(JSON.parse(ran.stdout).id);
    expect(view.status).toBe("SUCCEEDED");
    expect(view.workload?.name).toBe("tests.api.smoke.js");
    for (const name of ["status 200", "remote module", "env given", "secret given", "no worker env"]) {
      const c = view.checks.find((x) => x.name === name);
      expect(c, name).toBeDefined();
      expect(c!.fails, name).toBe(0);
      expect(c!.passes, name).toBeGreaterThan(0);
    }
    expect(view.scriptEnv).toEqual([
      { key: "API_TOKEN", value: "***", secret: true },
      { key: "GREETING", value: "hello world", secret: false },
    ]);
    // The old workload took the new name (same id); the modules are in its bundle with what was fetched.
    const w = (await workloads()).find((x) => x.name === "tests.api.smoke.js")!;
    expect(w.id).toBe(legacyId);
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    expect(w.spec.remoteModules).toEqual([
      {
        url: `http://${host}/lib/greet.js`,
        sha256: sha(modules["/lib/greet.js"]!),
        path: `_remote/127.0.0.1_${host.split(":")[1]}/lib/greet.js`,
      },
      {
        url: `http://${host}/lib/util.js`,
        sha256: sha(modules["/lib/util.js"]!),
        path: `_remote/127.0.0.1_${host.split(":")[1]}/lib/util.js`,
      },
    ]);

    // An explicit rename keeps the baseline (it hangs off the workload's id).
    const runId = JSON.parse(ran.stdout).id as string;
    expect((await fetch(`${web}/api/v1/runs/${runId}/baseline`, { method: "POST", headers: auth })).status).toBe(200);
    const rename = (from: string, to: string) =>
      fetch(`${web}/api/v1/workloads/${from}`, {
        method: "PUT",
        headers: { "content-type": "application/json", ...auth },
        body: JSON.stringify({ name: to }),
      });
    expect((await rename("tests.api.smoke.js", "api-smoke")).status).toBe(200);
    const baselines = (await (await fetch(`${web}/api/v1/baselines?workload=api-smoke`, { headers: auth })).json()) as Array<{
      runId: string;
    }>;
    expect(baselines.map((b) => b.runId)).toEqual([runId]);
    expect((await runView(runId)).workload?.name).toBe("api-smoke");
    await create("/api/v1/workloads", shortRamp("remote-scripts-taken", { vus: 1, holdSeconds: 1 }));
    expect((await rename("api-smoke", "remote-scripts-taken")).status).toBe(409);
    expect((await rename("api-smoke", "tests.api.smoke.js")).status).toBe(200);
  });

  it("masks a secret's value in the run's error, and another smoke.js is another workload", async () => {
    put(
      "tests/web/smoke.js",
      `export const options = { vus: 1, iterations: 1 };
export function setup() { throw new Error("cannot log in with " + __ENV.API_TOKEN); }
export default function () {}
`,
    );
    const ran = await cli(
      remote,
      "run",
      "--target",
      "remote-scripts-taewa",
      "--script",
      "tests/web/smoke.js",
      "--secret",
      "API_TOKEN",
      "--json",
    );
    expect(ran.code, ran.stderr).toBe(1);
    expect(`${ran.stdout}${ran.stderr}`).not.toContain(SECRET);
    const view = await runView(JSON.parse(ran.stdout).id);
    expect(view.status).toBe("FAILED");
    expect(view.workload?.name).toBe("tests.web.smoke.js");
    expect(view.error).toContain("cannot log in with ***");
    expect(JSON.stringify(view)).not.toContain(SECRET);
  });

  it("refuses before anything is saved or started: a module it cannot fetch, a bad --env, an unknown secret, files over the cap", async () => {
    const host = `127.0.0.1:${(moduleServer.address() as AddressInfo).port}`;
    const env = { ...remote, OPSBENCH_HTTP_MODULE_HOSTS: host };
    put("tests/api/gone.js", `import { x } from "http://${host}/lib/gone.js";\nexport default function () { x(); }\n`);
    put("tests/api/ok.js", "export default function () {}\n");
    put("data/big.csv", "x".repeat(FILES_CAP + 100_000));
    put("tests/api/big.js", 'const rows = open("../../data/big.csv");\nexport default function () { rows.length; }\n');
    const before = { runs: await runCount(), workloads: (await workloads()).length };

    const gone = await cli(env, "run", "--target", "remote-scripts-taewa", "--script", "tests/api/gone.js");
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`cannot fetch the module http://${host}/lib/gone.js: it answered 404; nothing was uploaded`);
    // Plain http from a host not allowed: refused, naming the URL.
    const notAllowed = await cli(remote, "run", "--target", "remote-scripts-taewa", "--script", "tests/api/gone.js");
    expect(notAllowed.code).toBe(2);
    expect(notAllowed.stderr).toContain(`cannot bundle http://${host}/lib/gone.js: only https modules are fetched`);

    for (const [flag, value, says] of [
      ["--env", "lower=x", "--env: lower:"],
      ["--secret", "NO_SUCH_SECRET", "no workspace secret named NO_SUCH_SECRET"],
    ] as const) {
      const bad = await cli(remote, "run", "--target", "remote-scripts-taewa", "--script", "tests/api/ok.js", flag, value);
      expect(bad.code, `${flag} ${value}: ${bad.stderr}`).toBe(2);
      expect(bad.stderr).toContain(says);
    }

    const big = await cli(remote, "run", "--target", "remote-scripts-taewa", "--script", "tests/api/big.js");
    expect(big.code).toBe(2);
    expect(big.stderr).toContain(
      `"data/big.csv" (${(FILES_CAP + 100_000).toLocaleString("en-US")} bytes) takes the script's files to ${(FILES_CAP + 100_000).toLocaleString("en-US")} bytes, over this instance's cap of ${FILES_CAP.toLocaleString("en-US")} bytes`,
    );
    expect(await runCount()).toBe(before.runs);
    // ok.js was saved by the --secret case (the secret is checked when the run is asked for); nothing else was.
    expect((await workloads()).map((w) => w.name).filter((n) => n.startsWith("tests.api.") && n !== "tests.api.smoke.js")).toEqual([
      "tests.api.ok.js",
    ]);
    moduleServer.close();
  });
});
