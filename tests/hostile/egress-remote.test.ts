// Issue 21, "routed egress to the target alone": an `endpoint` target on a host that is not this machine (a network
// namespace of our own standing for one, its own address on a veth pair) and on the admin's allowlist is loaded by a
// SANDBOXED k6 (no `unsandboxed-load` flag), while the same script cannot reach anything else: this machine's
// Postgres, Redis and web app (on loopback, or through the machine's address toward the target), a service of the
// machine on that address, another host's service, a second port of the target's host, the metadata address, or
// another host through a redirect of the target. Before this, such a run was refused ("its network reaches targets on
// this machine's loopback only"). The private ranges are probed too: a 172.16.0.0/12 address of another namespace
// (routed to it from this machine) and a 192.168.0.0/16 address of this machine (on its end of the target's veth),
// both added by this file to links it made.
import { type ChildProcess, execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { targetInput, workloadSpec } from "@opsbench/core";
import { startRun } from "@opsbench/jobs";
import { listLoadNetworks } from "@opsbench/host";
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
/** An address in 172.16.0.0/12 on `other`'s link (this machine routes it there), and one in 192.168.0.0/16 of this machine. */
let private172: string;
let private192: string;
let hostService192: ChildProcess;

const ip = (...args: string[]) => promisify(execFile)("ip", args);

/** A /32 in a private range that no interface of this machine is in and no route but the default covers. */
async function freePrivateAddress(pick: () => string): Promise<string> {
  const used = (await ip("-o", "-4", "addr", "show")).stdout;
  for (let attempt = 0; attempt < 50; attempt++) {
    const address = pick();
    const net24 = address.split(".").slice(0, 3).join(".");
    const routes = (await ip("route", "show", "match", address)).stdout.split("\n").filter(Boolean);
    if (!used.includes(`inet ${net24}.`) && routes.every((r) => r.startsWith("default"))) return address;
  }
  throw new Error("no free private address to probe");
}

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
  // 172.16.0.0/12: another host on a private network, a second address of the other namespace, routed to it.
  private172 = await freePrivateAddress(() => {
    const [a, b, c] = randomBytes(3);
    return `172.${16 + (a! & 15)}.${b}.${(c! % 250) + 2}`;
  });
  await ip("-n", other.ns, "addr", "add", `${private172}/32`, "dev", "eth0");
  await ip("route", "add", `${private172}/32`, "via", other.address, "dev", `${other.ns}h`);
  // 192.168.0.0/16: an address of this machine (on its end of the target's veth), with a service of the machine there.
  private192 = await freePrivateAddress(() => {
    const [b, c] = randomBytes(2);
    return `192.168.${b}.${(c! % 250) + 2}`;
  });
  await ip("addr", "add", `${private192}/32`, "dev", `${target.ns}h`);
  hostService192 = await serveOnHost(private192, hostServicePort);
  // The admin allows the target's address and port, and only those.
  await useWorker({ env: { OPSBENCH_LOAD_ALLOWED_HOSTS: `${TEST_LOAD_ALLOWED_HOSTS},${target.address}:${TARGET_PORT}` } });
});
afterAll(async () => {
  hostService?.kill("SIGKILL");
  hostService192?.kill("SIGKILL");
  // The addresses and the route go with the namespaces' veths.
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
      "another host on 172.16.0.0/12": `http://${private172}:${OTHER_PORT}/`,
      "a host service on 192.168.0.0/16": `http://${private192}:${hostServicePort}/`,
      "a second port of the target's host": `http://${target.address}:${SECOND_PORT}/`,
      metadata: "http://169.254.169.254/latest/meta-data/",
      "a redirect to another host": `http://${target.address}:${TARGET_PORT}/redirect?to=${encodeURIComponent(`http://${other.address}:${OTHER_PORT}/`)}`,
    };
    // Outside the sandbox, the ones that are ours all answer: what fails below fails because of the sandbox.
    for (const name of [
      "a host service on the host's address",
      "another host's service",
      "another host on 172.16.0.0/12",
      "a host service on 192.168.0.0/16",
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
