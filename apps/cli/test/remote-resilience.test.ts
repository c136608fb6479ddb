// The CLI in a team's CI (issue 37), against the real web app and worker: a proxy's 502s during a run are tried
// again (and a POST that creates a run is not), a server that never answers ends the command with exit 69 naming
// the URL, SIGINT while it waits aborts the run on the server (exit 130; SIGTERM mid-load, exit 143, the run ABORTED
// and the load lock free within 10 s, is the Action's test in packed-cli.test.ts, through the packed CLI), and the first run of a pair
// without a baseline passes with a notice and becomes the baseline (--if-no-baseline pass), or exits 2 (fail).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { opsbenchCommand, runOpsbenchWith, shortRamp, taewaTarget } from "../../../tests/helpers";
import { startSignedInWeb } from "../../../tests/test-identity";

const { web, owner } = await startSignedInWeb();
const auth = { authorization: `Bearer ${owner.token}` };
const remote = { OPSBENCH_URL: web, OPSBENCH_TOKEN: owner.token, DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none" };
const work = mkdtempSync(path.join(os.tmpdir(), "opsbench-resilience-"));
const servers: http.Server[] = [];
/** A succeeded run of res-taewa x res-short, made by the first test while the pair had no baseline. */
let shortRunId = "";
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function create(route: string, body: unknown) {
  const res = await fetch(`${web}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...auth },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

const runView = async (id: string) => (await (await fetch(`${web}/api/v1/runs/${id}`, { headers: auth })).json()) as { status: string };
const runCount = async () => ((await (await fetch(`${web}/api/v1/runs`, { headers: auth })).json()) as unknown[]).length;

async function listen(server: http.Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A reverse proxy to the web app that answers 502 itself to the requests `fails` picks (by method, path and how
 * many of that kind came before), as nginx does while the server behind it restarts. Records what it saw.
 */
async function flakyProxy(fails: (method: string, path: string, nth: number) => boolean) {
  const seen: Array<{ method: string; path: string; answered: number }> = [];
  const counts = new Map<string, number>();
  const server = http.createServer(async (req, res) => {
    const method = req.method ?? "GET";
    const url = req.url ?? "/";
    const kind = `${method} ${url.replace(/[0-9a-f-]{36}/g, "{id}").replace(/\?.*$/, "")}`;
    const nth = (counts.get(kind) ?? 0) + 1;
    counts.set(kind, nth);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (fails(method, url, nth)) {
      seen.push({ method, path: url, answered: 502 });
      res.writeHead(502, { "content-type": "text/html" }).end("<html><body><h1>502 Bad Gateway</h1></body></html>");
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !["host", "connection", "content-length"].includes(k)) as Array<[string, string]>,
    );
    const answer = await fetch(`${web}${url}`, { method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    const body = Buffer.from(await answer.arrayBuffer());
    seen.push({ method, path: url, answered: answer.status });
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" }).end(body);
  });
  return { url: await listen(server), seen };
}

/** The repository's `opsbench` as a child process, its output collected as it comes. */
function startOpsbench(env: Record<string, string>, ...args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [opsbenchCommand(), ...args], {
    env: { ...process.env, ...env },
  });
  const out = { stdout: "", stderr: "" };
  child.stdout!.on("data", (d) => (out.stdout += d));
  child.stderr!.on("data", (d) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, out, exited };
}

describe("the CLI when the network or the job misbehaves", () => {
  it("rides out a proxy's 502s while it polls a run (exit 0, one run made), and never sends a run's creation twice", async () => {
    await create("/api/v1/targets", taewaTarget("res-taewa", { replicas: 1 }));
    await create("/api/v1/workloads", shortRamp("res-short", { vus: 1, holdSeconds: 2 }));
    // The 2nd and 3rd polls of the run get a 502: the run is under way, as in a proxy restart during a long poll.
    const proxy = await flakyProxy(
      (method, url, nth) => method === "GET" && /^\/api\/v1\/runs\/[0-9a-f-]{36}$/.test(url) && (nth === 2 || nth === 3),
    );
    const before = await runCount();
    const r = await runOpsbenchWith(
      { ...remote, OPSBENCH_URL: proxy.url },
      "run",
      "--target",
      "res-taewa",
      "--workload",
      "res-short",
      "--json",
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).status).toBe("SUCCEEDED");
    shortRunId = JSON.parse(r.stdout).id;
    expect(proxy.seen.filter((s) => s.answered === 502)).toHaveLength(2);
    expect(r.stderr.match(/answered 502 Bad Gateway: trying again in/g)).toHaveLength(2);
    expect(proxy.seen.filter((s) => s.method === "POST" && s.path === "/api/v1/runs")).toHaveLength(1);
    expect(await runCount()).toBe(before + 1);

    // A 502 to the POST that creates a run: the server may have made it, so it is not sent again. Exit 69, said why.
    const refusing = await flakyProxy((method, url) => method === "POST" && url === "/api/v1/runs");
    const lost = await runOpsbenchWith(
      { ...remote, OPSBENCH_URL: refusing.url },
      "run",
      "--target",
      "res-taewa",
      "--workload",
      "res-short",
    );
    expect(lost.code, lost.stderr).toBe(69);
    expect(lost.stderr).toContain(`cannot reach ${refusing.url} (OPSBENCH_URL): POST /api/v1/runs answered 502`);
    expect(lost.stderr).toContain("not sent again");
    expect(refusing.seen.filter((s) => s.method === "POST")).toHaveLength(1);
  });

  it("a server that never answers: each try ends at the request timeout, and the command with exit 69 naming the URL", async () => {
    let requests = 0;
    const silent = await listen(
      http.createServer(() => {
        requests++; // never answered
      }),
    );
    const started = Date.now();
    const r = await runOpsbenchWith(
      { ...remote, OPSBENCH_URL: silent, OPSBENCH_REQUEST_TIMEOUT: "1", OPSBENCH_RETRY_FOR: "3" },
      ...["runs", "show", "00000000-0000-0000-0000-000000000000"],
    );
    expect(r.code, r.stderr).toBe(69);
    expect(r.stderr).toContain(
      `cannot reach ${silent} (OPSBENCH_URL): GET /api/v1/runs/00000000-0000-0000-0000-000000000000 got no answer within 1 s`,
    );
    // Tried again within the 3 s budget (each try 1 s, waits of 0.5 s then 1 s): more than once, and it ended.
    expect(requests).toBeGreaterThanOrEqual(2);
    expect(r.stderr).toContain("trying again");
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it("SIGINT while run --external waits for its generators: the run is aborted (exit 130)", async () => {
    const cli = startOpsbench(remote, "run", "--external", "--name", "res-external");
    await expect.poll(() => cli.out.stderr.includes("waiting for 1 generator(s)"), { timeout: 60_000 }).toBe(true);
    const id = /run ([0-9a-f-]{36}): waiting for its load/.exec(cli.out.stderr)![1]!;
    cli.child.kill("SIGINT");
    expect(await cli.exited).toBe(130);
    expect(cli.out.stderr).toContain(`run ${id} aborted on ${web}`);
    await expect.poll(async () => (await runView(id)).status, { timeout: 10_000, interval: 250 }).toBe("ABORTED");
  });

  it("--if-no-baseline: the first run of a pair passes with a notice and becomes its baseline; fail exits 2 before any load", async () => {
    // compare, on a run made while its pair had no baseline: exit 0, the notice, and the run marked.
    const compared = await runOpsbenchWith(
      remote,
      "compare",
      shortRunId,
      "--baseline",
      "latest-baseline",
      "--fail-on",
      "p95 > +10%",
      "--json",
    );
    expect(compared.code, compared.stderr).toBe(0);
    expect(compared.stderr).toContain("no baseline yet for workload res-short on target res-taewa: this run becomes the first");
    expect(compared.stderr).toContain(`run ${shortRunId} is now the baseline for target res-taewa and workload res-short`);
    expect(JSON.parse(compared.stdout).noBaseline).toContain("no baseline yet");

    // run: said before the load, the run made and marked.
    await create("/api/v1/workloads", shortRamp("res-first", { vus: 1, holdSeconds: 1 }));
    const junit = path.join(work, "first.xml");
    const first = await runOpsbenchWith(
      remote,
      ...["run", "--target", "res-taewa", "--workload", "res-first", "--baseline", "latest-baseline", "--fail-on", "p95 > +10%"],
      ...["--branch", "feature/first", "--junit", junit, "--json"],
    );
    expect(first.code, first.stderr).toBe(0);
    const notice = "no baseline yet for workload res-first on target res-taewa (branch feature/first): this run becomes the first";
    expect(first.stderr.indexOf(notice), first.stderr).toBeGreaterThanOrEqual(0);
    expect(first.stderr.indexOf(notice)).toBeLessThan(first.stderr.indexOf("created on"));
    const out = JSON.parse(first.stdout) as { id: string; status: string };
    expect(out.status).toBe("SUCCEEDED");
    const [b] = (await (await fetch(`${web}/api/v1/baselines?target=res-taewa&workload=res-first`, { headers: auth })).json()) as Array<{
      runId: string;
    }>;
    expect(b?.runId).toBe(out.id);
    expect(readFileSync(junit, "utf8")).toContain(
      '<testcase classname="opsbench.gate" name="p95 &gt; +10%">\n      <skipped message="no baseline yet',
    );

    await create("/api/v1/workloads", shortRamp("res-unmarked", { vus: 1, holdSeconds: 1 }));
    const before = await runCount();
    const refused = await runOpsbenchWith(
      remote,
      ...["run", "--target", "res-taewa", "--workload", "res-unmarked", "--baseline", "latest-baseline", "--if-no-baseline", "fail"],
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("no baseline for target res-taewa and workload res-unmarked yet (--if-no-baseline fail)");
    expect(await runCount()).toBe(before);
    const bad = await runOpsbenchWith(remote, "compare", out.id, "--baseline", "latest-baseline", "--if-no-baseline", "skip");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--if-no-baseline must be pass or fail, not "skip"');
  });
});
