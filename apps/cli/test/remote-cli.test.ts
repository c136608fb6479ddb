// The CLI against a running server with an API token (OPSBENCH_URL + OPSBENCH_TOKEN): the same output and
// exit codes as against the database, 99 when the run's thresholds fail.
// The web app runs with OPSBENCH_AUTH=required, so the token is what lets the CLI in.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runOpsbenchWith, shortRamp, taewaTarget } from "../../../tests/helpers";
import { startSignedInWeb } from "../../../tests/test-identity";

const { web, owner } = await startSignedInWeb();
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
