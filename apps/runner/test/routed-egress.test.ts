// Issue 21, routed egress, on the runner alone: a remote target named by a host name is resolved ONCE by the runner
// (here through a tiny DNS server of our own) and pinned: k6, sandboxed, reaches it under its name (the Host header
// keeps it) with no DNS of its own, and a rebinding answer after the first changes nothing. A name that resolves to
// loopback or the metadata address, or an address of this machine itself, is refused before anything is made.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Resolver } from "node:dns/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnv } from "../src/env";
import { runK6 } from "../src/k6-process";
import { makeRemoteHost, type RemoteHost, startTinyDns } from "../../../tests/remote-hosts";

const binary = loadEnv({}).OPSBENCH_ENGINE;
const PORT = 8080;
const TLS_PORT = 8443;
// The target answers with the Host header it was sent.
const HOST_ECHO = `require("node:http").createServer((req, res) => res.end(String(req.headers.host))).listen(Number(process.env.PORT), "0.0.0.0");`;

// The same over TLS, answering with the SNI name the client sent and the Host header.
const TLS_ECHO = (key: string, cert: string) =>
  `require("node:https").createServer({ key: ${JSON.stringify(key)}, cert: ${JSON.stringify(cert)} }, (req, res) => res.end(String(req.socket.servername) + " " + String(req.headers.host))).listen(Number(process.env.PORT), "0.0.0.0");`;

let target: RemoteHost;
let other: RemoteHost;
let dns: Awaited<ReturnType<typeof startTinyDns>>;
let workDir: string;
let resolver: Resolver;

beforeAll(async () => {
  workDir = mkdtempSync(path.join(os.tmpdir(), "opsbench-egress-"));
  target = await makeRemoteHost();
  await target.serve(PORT, HOST_ECHO);
  const certDir = mkdtempSync(path.join(os.tmpdir(), "opsbench-egress-cert-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=bench.remote.test",
      "-keyout",
      path.join(certDir, "key.pem"),
      "-out",
      path.join(certDir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  await target.serve(
    TLS_PORT,
    TLS_ECHO(readFileSync(path.join(certDir, "key.pem"), "utf8"), readFileSync(path.join(certDir, "cert.pem"), "utf8")),
  );
  rmSync(certDir, { recursive: true, force: true });
  other = await makeRemoteHost();
  await other.serve(PORT, HOST_ECHO);
  dns = await startTinyDns((name, n) => {
    if (name === "bench.remote.test") return n === 1 ? target.address : "127.0.0.1"; // rebinds after the first answer
    if (name === "tls.remote.test" || name === "own.remote.test") return target.address;
    if (name === "loop.remote.test") return "127.0.0.1";
    if (name === "meta.remote.test") return "169.254.169.254";
    if (name === "self.remote.test") return target.hostAddress;
    return null;
  });
  resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([dns.server]);
});
afterAll(async () => {
  await dns?.close();
  await target?.remove();
  await other?.remove();
  rmSync(workDir, { recursive: true, force: true });
});

function run(baseUrl: string, script: string, onOwned: () => void = () => {}) {
  return runK6({
    binary,
    workDir: mkdtempSync(path.join(workDir, "run-")),
    script,
    env: { OPSBENCH_BASE_URL: baseUrl },
    signal: new AbortController().signal,
    onLine: () => {},
    onOwned,
    resolveHost: (host) => resolver.resolve4(host),
  });
}

describe("a remote target named by a host name", () => {
  it("is resolved once and pinned: k6 reaches it sandboxed under its name, a rebinding answer changes nothing, no DNS inside", async () => {
    const script = `
import http from "k6/http";
import { check } from "k6";
export const options = { vus: 1, iterations: 5, thresholds: { checks: ["rate==1"] } };
export default function () {
  check(http.get(__ENV.OPSBENCH_BASE_URL + "/"), { "the target, under its name": (r) => r.status === 200 && r.body === "bench.remote.test:${PORT}" });
  // Another name of the same DNS server: k6 has no DNS, so nothing resolves it.
  check(http.get("http://self.remote.test:${PORT}/", { timeout: "2s" }), { "no other name resolves": (r) => r.status === 0 });
}
`;
    const result = await run(`http://bench.remote.test:${PORT}`, script);
    expect(result.exitCode, result.outputTail).toBe(0);
    expect(result.unsandboxed).toBeNull();
    const checks = (result.summary as { metrics: Record<string, { passes: number; fails: number }> }).metrics.checks!;
    expect(checks).toMatchObject({ passes: 10, fails: 0 });
    // The runner asked once; k6 never asked (for this name or the other).
    expect(dns.queries.filter((q) => q === "bench.remote.test")).toHaveLength(1);
    expect(dns.queries).not.toContain("self.remote.test");
  });

  it("over HTTPS, the pinned name is the SNI and the Host header", async () => {
    const script = `
import http from "k6/http";
import { check } from "k6";
export const options = { vus: 1, iterations: 2, insecureSkipTLSVerify: true, thresholds: { checks: ["rate==1"] } };
export default function () {
  const r = http.get(__ENV.OPSBENCH_BASE_URL + "/");
  check(r, { "SNI and Host are the name": (r) => r.status === 200 && r.body === "tls.remote.test tls.remote.test:${TLS_PORT}" });
}
`;
    const result = await run(`https://tls.remote.test:${TLS_PORT}`, script);
    expect(result.exitCode, result.outputTail).toBe(0);
    expect(result.unsandboxed).toBeNull();
    expect((result.summary as { metrics: Record<string, { passes: number }> }).metrics.checks!.passes).toBe(2);
  });

  it("a script that maps the target's name to another host itself (its own hosts option) reaches nothing", async () => {
    // The other host answers from outside the sandbox: only the sandbox stops it.
    expect(await (await fetch(`http://${other.address}:${PORT}/`, { signal: AbortSignal.timeout(3000) })).text()).toBe(
      `${other.address}:${PORT}`,
    );
    const script = `
import http from "k6/http";
import { check } from "k6";
export const options = { vus: 1, iterations: 1, hosts: { "own.remote.test": "${other.address}" }, thresholds: { checks: ["rate==1"] } };
export default function () {
  check(http.get(__ENV.OPSBENCH_BASE_URL + "/", { timeout: "2s" }), { "the other host is unreachable": (r) => r.status === 0 });
}
`;
    const result = await run(`http://own.remote.test:${PORT}`, script);
    expect(result.exitCode, result.outputTail).toBe(0);
    expect((result.summary as { metrics: Record<string, { passes: number }> }).metrics.checks!.passes).toBe(1);
  });

  it("a name that resolves to loopback, the metadata address or this machine is refused before anything is made", async () => {
    const script = `import http from "k6/http";\nexport default function () { http.get(__ENV.OPSBENCH_BASE_URL); }\n`;
    const cases: Array<[string, RegExp]> = [
      ["loop.remote.test", /load to loop\.remote\.test \(127\.0\.0\.1\) refused: a name that resolves to loopback/],
      ["meta.remote.test", /load to meta\.remote\.test \(169\.254\.169\.254\) refused: the address is in 169\.254\.0\.0\/16/],
      ["self.remote.test", /refused: it is an address of the runner's own machine/],
      ["nowhere.remote.test", /load to nowhere\.remote\.test refused: the runner could not resolve it/],
    ];
    for (const [name, message] of cases) {
      let owned = false;
      await expect(
        run(`http://${name}:${PORT}`, script, () => (owned = true)),
        name,
      ).rejects.toThrow(message);
      expect(owned, name).toBe(false);
    }
  });
});
