// Issue 21, "which hosts may be loaded": an `endpoint` target the user typed, on a host that is neither on the
// admin's allowlist nor made by opsbench for the run, is loaded only once the workspace proves it owns the host: its
// token served at /.well-known/opsbench-verify/<token> (over the pinned address, no redirect followed) or a DNS TXT
// record "opsbench-verify=<token>" on the pinned address's reverse name (a record on the name alone: tests/hostile/
// egress-proofs.test.ts). The outcome is recorded on the run. The hosts are network namespaces of our own
// (tests/remote-hosts.ts, in 10.231.0.0/16, a private range the worker here opens with OPSBENCH_LOAD_PRIVATE_RANGES),
// their names answered by a tiny DNS server the worker is pointed at (OPSBENCH_DNS_SERVERS). Before this, every such
// run was refused by the allowlist alone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workloadSpec } from "@opsbench/core";
import { startRun } from "@opsbench/jobs";
import { TEST_LOAD_ALLOWED_HOSTS, useWorker } from "../file-services";
import { openTestStack, waitForFinal } from "../helpers";
import { makeRemoteHost, type RemoteHost, startTinyDns } from "../remote-hosts";

const PORT = 8080;
let stack: Awaited<ReturnType<typeof openTestStack>>;
let target: RemoteHost;
let other: RemoteHost;
let dns: Awaited<ReturnType<typeof startTinyDns>>;
/** The workspace's token for each name (the same the target page shows). */
const tokens: Record<string, string> = {};

const NAMES = ["wk", "txt", "none", "wrong", "redirect", "multi"].map((n) => `${n}.opsbench.test`);
const V6_ONLY = "v6only.opsbench.test";
const name = (n: string) => `${n}.opsbench.test`;

/** A server that answers `routes` (path -> [status, body, location?]) and says who it is on "/". */
const server = (who: string, routes: Record<string, [number, string, string?]>) => `
const http = require("node:http");
const routes = ${JSON.stringify(routes)};
http.createServer((req, res) => {
  const path = new URL(req.url, "http://x").pathname;
  const r = routes[path];
  if (r) { res.writeHead(r[0], r[2] ? { location: r[2] } : {}); res.end(r[1]); return; }
  if (path.startsWith("/.well-known/")) { res.writeHead(404); res.end("no"); return; }
  res.end(${JSON.stringify(who)} + " " + (req.headers.host ?? ""));
}).listen(Number(process.env.PORT), "0.0.0.0");
`;
const wellKnown = (token: string) => `/.well-known/opsbench-verify/${token}`;
/** Where a TXT proof of an IPv4 address lives: its reverse name, which the address block's owner answers for. */
const reverseName = (address: string) => `${address.split(".").reverse().join(".")}.in-addr.arpa`;

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  [target, other] = await Promise.all([makeRemoteHost(), makeRemoteHost()]);
  for (const n of NAMES) {
    await stack.scope.targets.put({ name: n, kind: "endpoint", spec: { url: `http://${n}:${PORT}` } });
    tokens[n] = (await stack.scope.targetVerification(n)).token!;
  }
  await target.serve(
    PORT,
    server("target", {
      [wellKnown(tokens[name("wk")]!)]: [200, `${tokens[name("wk")]}\n`],
      [wellKnown(tokens[name("wrong")]!)]: [200, "not-the-token"],
      // A redirect to another host, which would answer with the token: never followed.
      [wellKnown(tokens[name("redirect")]!)]: [302, "", `http://${other.address}:${PORT}${wellKnown(tokens[name("redirect")]!)}`],
    }),
  );
  await other.serve(PORT, server("other", { [wellKnown(tokens[name("redirect")]!)]: [200, tokens[name("redirect")]!] }));
  dns = await startTinyDns((q) => (q === name("multi") ? [target.address, other.address] : NAMES.includes(q) ? target.address : null), {
    aaaa: (q) => (q === V6_ONLY ? ["fd00:231::2"] : []),
    // Every name points at the target's address, whose reverse name holds the tokens of the names proven by TXT.
    txt: (q) =>
      q === reverseName(target.address)
        ? ["v=spf1 -all", `opsbench-verify=${tokens[name("txt")]}`, `opsbench-verify=${tokens[name("multi")]}`]
        : [],
  });
  // The allowlist holds loopback ports only (the tests' default): none of these hosts is on it.
  await useWorker({
    env: {
      OPSBENCH_LOAD_ALLOWED_HOSTS: TEST_LOAD_ALLOWED_HOSTS,
      OPSBENCH_DNS_SERVERS: dns.server,
      OPSBENCH_LOAD_PRIVATE_RANGES: "10.231.0.0/16",
    },
  });
  await stack.scope.workloads.put({
    name: "who-answers",
    spec: workloadSpec.parse({
      kind: "script",
      source: `
import http from "k6/http";
import { check } from "k6";
export const options = { vus: 1, iterations: 3 };
export default function () {
  const r = http.get(__ENV.OPSBENCH_BASE_URL + "/");
  check(r, { ["answered by " + String(r.body).split(" ")[0]]: () => true });
}
`,
    }),
  });
});
afterAll(async () => {
  await dns?.close();
  await Promise.all([target?.remove(), other?.remove()]);
  await stack?.close();
});

async function runOf(targetName: string) {
  const run = await startRun(stack.scope, stack.queue, { targetName, workloadName: "who-answers" });
  return waitForFinal(stack.db, run.id);
}

describe("endpoint targets need the admin's allowlist or a proof of ownership", () => {
  it("admitted by the well-known token: SUCCEEDS sandboxed, recorded on the run with the pinned address", async () => {
    const view = await runOf(name("wk"));
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.flags.map((f) => f.code)).not.toContain("unsandboxed-load");
    expect(view.loadAdmission).toMatchObject({ how: "well-known", host: name("wk"), port: PORT, address: target.address });
    expect(view.loadAdmission!.detail).toContain(`http://${name("wk")}:${PORT}${wellKnown(tokens[name("wk")]!)}`);
    expect(view.checks.map((c) => c.name)).toEqual(["answered by target"]);
    expect(view.events.map((e) => e.message)).toContainEqual(
      expect.stringContaining(`load host ${name("wk")} (${target.address}) admitted`),
    );
  });

  it("admitted by the DNS TXT record on the address's reverse name", async () => {
    const view = await runOf(name("txt"));
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.loadAdmission).toMatchObject({ how: "dns-txt", host: name("txt"), address: target.address });
    expect(view.loadAdmission!.detail).toBe(
      `TXT "opsbench-verify=${tokens[name("txt")]}" on ${reverseName(target.address)}, the reverse name of ${target.address}`,
    );
  });

  it("refused without either, before anything starts, saying how to admit the host", async () => {
    const view = await runOf(name("none"));
    expect(view.status).toBe("FAILED");
    const token = tokens[name("none")]!;
    expect(view.error).toContain(`load to ${name("none")} refused: opsbench did not start this endpoint`);
    expect(view.error).toContain(`${wellKnown(token)} at ${target.address}: answered 404`);
    expect(view.error).toContain(
      `TXT records on ${reverseName(target.address)}, the reverse name of ${target.address}, hold another token`,
    );
    expect(view.error).toContain(`serve http://${name("none")}:${PORT}${wellKnown(token)} answering 200 with the token ${token}`);
    expect(view.error).toContain(`a DNS TXT record "opsbench-verify=${token}" on ${reverseName(target.address)}`);
    expect(view.error).toContain("OPSBENCH_LOAD_ALLOWED_HOSTS");
    expect(view.loadAdmission).toBeNull();
    expect(view.steps.map((s) => s.name)).not.toContain("LOAD");
  });

  it("a wrong token is refused (at the well-known path and in TXT)", async () => {
    const view = await runOf(name("wrong"));
    expect(view.status).toBe("FAILED");
    expect(view.error).toContain("answered 200 without the token as its body");
    expect(view.error).toContain(
      `TXT records on ${reverseName(target.address)}, the reverse name of ${target.address}, hold another token`,
    );
    expect(view.steps.map((s) => s.name)).not.toContain("LOAD");
  });

  it("a redirect to another host during the check is not followed (that host serving the token does not count)", async () => {
    // Outside the check, the redirect leads to a host that answers with the token.
    const followed = await fetch(`http://${target.address}:${PORT}${wellKnown(tokens[name("redirect")]!)}`, {
      headers: { host: `${name("redirect")}:${PORT}` },
    });
    expect(await followed.text()).toBe(tokens[name("redirect")]);
    const view = await runOf(name("redirect"));
    expect(view.status).toBe("FAILED");
    expect(view.error).toContain(
      `answered 302 (a redirect to http://${other.address}:${PORT}${wellKnown(tokens[name("redirect")]!)}, not followed)`,
    );
    expect(view.steps.map((s) => s.name)).not.toContain("LOAD");
  });

  it("a name with two addresses is loaded at its first only, and the run says so", async () => {
    const view = await runOf(name("multi"));
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.loadAdmission).toMatchObject({ how: "dns-txt", address: target.address, addresses: [target.address, other.address] });
    // Every request went to the first address: the second's server never answered one.
    expect(view.checks).toEqual([expect.objectContaining({ name: "answered by target", passes: 3, fails: 0 })]);
    expect(view.events.map((e) => e.message)).toContainEqual(
      expect.stringContaining(
        `the name has 2 addresses (${target.address}, ${other.address}): load goes to the first, ${target.address}, only`,
      ),
    );
  });

  it("IPv6 is refused with a clear message (k6's load network routes IPv4 only), a literal and a name with AAAA records only", async () => {
    await stack.scope.targets.put({ name: "v6-literal", kind: "endpoint", spec: { url: `http://[fd00:231::2]:${PORT}` } });
    await stack.scope.targets.put({ name: "v6-name", kind: "endpoint", spec: { url: `http://${V6_ONLY}:${PORT}` } });
    const literal = await runOf("v6-literal");
    expect(literal.status).toBe("FAILED");
    expect(literal.error).toBe(
      "load to fd00:231::2 refused: k6's load network routes IPv4 only; give the target an IPv4 address or a name with an A record; refused before anything was deployed",
    );
    const named = await runOf("v6-name");
    expect(named.status).toBe("FAILED");
    expect(named.error).toContain(
      `load to ${V6_ONLY} refused: it has IPv6 addresses only (fd00:231::2), and k6's load network routes IPv4 only`,
    );
  });
});
