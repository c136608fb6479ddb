// The CLI against a running server with an API token (OPSBENCH_URL + OPSBENCH_TOKEN): the same output and
// exit codes as against the database, 99 when the run's thresholds fail.
// The web app runs with OPSBENCH_AUTH=required, so the token is what lets the CLI in.
import { describe, expect, it } from "vitest";
import { runOpsbenchWith, shortRamp, taewaTarget } from "../../../tests/helpers";
import { startSignedInWeb } from "../../../tests/test-identity";

const { web, owner } = await startSignedInWeb();
const remote = { OPSBENCH_URL: web, OPSBENCH_TOKEN: owner.token, DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none" };

async function create(path: string, body: unknown) {
  const res = await fetch(`${web}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${owner.token}` },
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
