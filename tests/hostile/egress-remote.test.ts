// Issue 21, "routed egress to the target alone": an `endpoint` target on a host that is not this machine (a network
// namespace of our own standing for one, its own address on a veth pair) and on the admin's allowlist is loaded by a
// SANDBOXED k6 (no `unsandboxed-load` flag), while the same script cannot reach anything else: this machine's
// Postgres, Redis and web app (on loopback, or through the machine's address toward the target), a service of the
// machine on that address, another host's service, a second port of the target's host, the metadata address, or
// another host through a redirect of the target. Before this, such a run was refused ("its network reaches targets on
// this machine's loopback only").
import { type ChildProcess, execFile } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { targetInput, workloadSpec } from "@opsbench/core";
import { startRun } from "@opsbench/jobs";
import { listLoadNetworks } from "@opsbench/providers";
import { TEST_LOAD_ALLOWED_HOSTS, useWorker } from "../file-services";
import { openTestStack, testDatabaseUrl, testRedisUrl, testWebUrl, waitForFinal } from "../helpers";
import { freePort } from "../ports";
import { makeRemoteHost, type RemoteHost, serveOnHost } from "../remote-hosts";

const TARGET_PORT = 8080;
const SECOND_PORT = 8081;
const OTHER_PORT = 8080;

let stack: Awaited<ReturnType<typeof openTestStack>>;
let target: RemoteHost;
let other: RemoteHost;
let hostService: ChildProcess;
let hostServicePort: number;

// The target: the echo's answer on "/", and a redirect to wherever `?to=` says on "/redirect".
const REDIRECTOR = `
const http = require("node:http");
http.createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  if (url.pathname === "/redirect") { res.writeHead(302, { location: url.searchParams.get("to") }); res.end(); return; }
  res.end("Hello, input was: " + (url.searchParams.get("input") ?? ""));
}).listen(Number(process.env.PORT), "0.0.0.0");
`;

beforeAll(async () => {
  stack = await openTestStack();
  target = await makeRemoteHost();
  other = await makeRemoteHost();
  await target.serve(TARGET_PORT, REDIRECTOR);
  await target.serve(SECOND_PORT);
  await other.serve(OTHER_PORT);
  // A service of this machine on its own address toward the target (as a real host's gateway would hold).
  hostServicePort = await freePort();
  hostService = await serveOnHost(target.hostAddress, hostServicePort);
  // The admin allows the target's address and port, and only those.
  await useWorker({ env: { OPSBENCH_LOAD_ALLOWED_HOSTS: `${TEST_LOAD_ALLOWED_HOSTS},${target.address}:${TARGET_PORT}` } });
});
afterAll(async () => {
  hostService?.kill("SIGKILL");
  await target?.remove();
  await other?.remove();
  await stack?.close();
});

async function get(url: string): Promise<number> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(3000) })).status;
  } catch {
    return 0;
  }
}

describe("routed egress: a sandboxed run reaches a remote target and nothing else", () => {
  it("a run against the remote host's endpoint SUCCEEDS sandboxed, while every other address and port fails inside it", async () => {
    const pg = new URL(testDatabaseUrl()).port;
    const redis = new URL(testRedisUrl()).port;
    const web = new URL(testWebUrl()).port;
    const probes: Record<string, string> = {
      "postgres on loopback": `http://127.0.0.1:${pg}/`,
      "redis on loopback": `http://127.0.0.1:${redis}/`,
      "web app on loopback": `http://127.0.0.1:${web}/`,
      "postgres via the host's address": `http://${target.hostAddress}:${pg}/`,
      "redis via the host's address": `http://${target.hostAddress}:${redis}/`,
      "web app via the host's address": `http://${target.hostAddress}:${web}/`,
      "a host service on the host's address": `http://${target.hostAddress}:${hostServicePort}/`,
      "another host's service": `http://${other.address}:${OTHER_PORT}/`,
      "a second port of the target's host": `http://${target.address}:${SECOND_PORT}/`,
      metadata: "http://169.254.169.254/latest/meta-data/",
      "a redirect to another host": `http://${target.address}:${TARGET_PORT}/redirect?to=${encodeURIComponent(`http://${other.address}:${OTHER_PORT}/`)}`,
    };
    // Outside the sandbox, the ones that are ours all answer: what fails below fails because of the sandbox.
    for (const name of [
      "a host service on the host's address",
      "another host's service",
      "a second port of the target's host",
      "a redirect to another host",
    ])
      expect(await get(probes[name]!), name).toBe(200);

    const source = `
import http from "k6/http";
import { check } from "k6";
export const options = { scenarios: { main: { executor: "shared-iterations", vus: 1, iterations: 4, maxDuration: "90s" } } };
const probes = ${JSON.stringify(probes)};
export default function () {
  check(http.get(__ENV.OPSBENCH_BASE_URL + "/?input=hi", { tags: { name: "target" } }), { "target answers": (r) => r.status === 200 && r.body === "Hello, input was: hi" });
  if (__ITER > 0) return;
  for (const [name, url] of Object.entries(probes)) {
    const r = http.get(url, { timeout: "2s", tags: { name: "probe" } });
    check(r, { ["net " + name + ": status " + r.status]: () => true });
  }
}
`;
    await stack.scope.targets.put({ name: "remote-echo", kind: "endpoint", spec: { url: `http://${target.address}:${TARGET_PORT}` } });
    await stack.scope.workloads.put({ name: "remote-probes", spec: workloadSpec.parse({ kind: "script", source }) });
    const run = await startRun(stack.scope, stack.queue, { targetName: "remote-echo", workloadName: "remote-probes" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.flags.map((f) => f.code)).not.toContain("unsandboxed-load");
    expect(view.checks.find((c) => c.name === "target answers")).toMatchObject({ passes: 4, fails: 0 });
    const net = view.checks.map((c) => c.name).filter((n) => n.startsWith("net "));
    expect(net.sort()).toEqual(
      Object.keys(probes)
        .map((name) => `net ${name}: status 0`)
        .sort(),
    );
  });

  it("a second port of the same host is still refused by the allowlist before anything starts", async () => {
    await stack.scope.targets.put({ name: "remote-second", kind: "endpoint", spec: { url: `http://${target.address}:${SECOND_PORT}` } });
    await stack.scope.workloads.put({
      name: "one-get",
      spec: workloadSpec.parse({
        kind: "script",
        source: `import http from "k6/http";\nexport const options = { vus: 1, iterations: 1 };\nexport default function () { http.get(__ENV.OPSBENCH_BASE_URL + "/"); }\n`,
      }),
    });
    const run = await startRun(stack.scope, stack.queue, { targetName: "remote-second", workloadName: "one-get" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.status).toBe("FAILED");
    expect(view.error).toContain(`load to ${target.address} refused: opsbench did not start this endpoint`);
    expect(view.steps.map((s) => s.name)).not.toContain("LOAD");
  });

  it("a kind whose address only the deploy tells is no longer refused for want of a host name on the allowlist (it is made for the run)", async () => {
    // The allowlist above holds addresses only; a platform's own address (a function URL) was refused before deploy
    // for that. Now it is admitted as created by the run: the run goes on to its next check, the credential.
    await stack.scope.targets.put(
      targetInput.parse({
        name: "lambda-no-endpoint",
        kind: "aws-lambda",
        spec: { credential: "nowhere", region: "us-east-1", roleArn: "arn:aws:iam::123456789012:role/bench" },
      }),
    );
    const run = await startRun(stack.scope, stack.queue, { targetName: "lambda-no-endpoint", workloadName: "one-get" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.status).toBe("FAILED");
    expect(view.error).not.toContain("allowlist");
    expect(view.error).toContain('credential "nowhere"');
    expect(view.steps.map((s) => s.name)).not.toContain("LOAD");
  });

  it("no load network is left behind by the runs", async () => {
    // The runner removes each run's network when its k6 ends; other files' runs may hold theirs, so only ours count:
    // a network routed to this file's target would be one this file made.
    const left = await listLoadNetworks();
    for (const name of left) {
      const rules = await new Promise<string>((resolve) =>
        execFile("nft", ["list", "table", "inet", name], (_err, stdout) => resolve(String(stdout ?? ""))),
      );
      expect(rules, name).not.toContain(target.address);
    }
  });
});
