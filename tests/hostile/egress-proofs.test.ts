// Proofs of host ownership bound to the address loaded (docs/security.md "Egress policy"), as a security review tried
// them: a name of the user's own whose A record points at someone else's host and whose TXT record holds the
// workspace's token was admitted `dns-txt` at that address, and the script read the victim's page back; private and
// shared ranges were open to any proof; a loopback OpenFaaS gateway skipped the host check (every loopback port but
// opsbench's own three reachable); a proof server trickling its answer held the host's load lock for minutes. The
// hosts are network namespaces of our own (tests/remote-hosts.ts) named through a tiny DNS server (OPSBENCH_DNS_SERVERS).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type CredentialSecret, kubernetesSpec, workloadSpec } from "@opsbench/core";
import { loadRunView, workspaceScope } from "@opsbench/db";
import { createStudyQueue, startRun, startStudy } from "@opsbench/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeconfigYaml } from "../fake-kube-api";
import { TEST_LOAD_ALLOWED_HOSTS, useWorker } from "../file-services";
import { openTestStack, testRedisUrl, testSecretKey, waitForFinal } from "../helpers";
import { freePort } from "../ports";
import { makeRemoteHost, type RemoteHost, serveOnHost, startTinyDns } from "../remote-hosts";
import { newWorkspace } from "./limits-members";

const PORT = 8080;
const SECRET = `VICTIM-SECRET-${Math.random().toString(36).slice(2)}`;
const name = (n: string) => `${n}.proofs.test`;
const wellKnown = (token: string) => `/.well-known/opsbench-verify/${token}`;
/** The remote hosts are in 10.231.0.0/16: private, opened for proofs only where a test says so. */
const PRIVATE_OPEN = "10.231.0.0/16";
/** The name whose records the owner of an IPv4 address's block answers for (RFC 1035 in-addr.arpa). */
const reverseDnsName = (address: string) => `${address.split(".").reverse().join(".")}.in-addr.arpa`;

let stack: Awaited<ReturnType<typeof openTestStack>>;
let victim: RemoteHost;
let owned: RemoteHost;
let slow: RemoteHost;
let dns: Awaited<ReturnType<typeof startTinyDns>>;
const tokens: Record<string, string> = {};
const NAMES = ["foreign", "reverse", "wk-private", "trickle"].map(name);

/**
 * A server that answers `routes` (path -> body, 200), counts the well-known requests it gets (GET /hits answers the
 * count) and serves `page` on "/". `trickle`: the well-known path answers 200 at once, then one byte a second.
 */
const server = (page: string, routes: Record<string, string>, trickle = false) => `
const http = require("node:http");
const routes = ${JSON.stringify(routes)};
let hits = 0;
http.createServer((req, res) => {
  const path = new URL(req.url, "http://x").pathname;
  if (path === "/hits") return res.end(String(hits));
  if (path.startsWith("/.well-known/")) {
    hits++;
    if (${trickle}) {
      res.writeHead(200, { "content-type": "text/plain" });
      const t = setInterval(() => res.write("x"), 1000);
      setTimeout(() => { clearInterval(t); res.end(); }, 45000);
      return;
    }
    if (routes[path]) return res.end(routes[path]);
    res.writeHead(404);
    return res.end("no");
  }
  res.end(${JSON.stringify(page)});
}).listen(Number(process.env.PORT), "0.0.0.0");
`;
const hits = async (host: RemoteHost) => Number(await (await fetch(`http://${host.address}:${PORT}/hits`)).text());

const workerEnv = (extra: Record<string, string> = {}) => ({
  OPSBENCH_LOAD_ALLOWED_HOSTS: TEST_LOAD_ALLOWED_HOSTS,
  OPSBENCH_DNS_SERVERS: dns.server,
  ...extra,
});

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  [victim, owned, slow] = await Promise.all([makeRemoteHost(), makeRemoteHost(), makeRemoteHost()]);
  for (const n of NAMES) {
    await stack.scope.targets.put({ name: n, kind: "endpoint", spec: { url: `http://${n}:${PORT}` } });
    tokens[n] = (await stack.scope.targetVerification(n)).token!;
  }
  // The victim serves no token at all: its page is what the review's script read back.
  await victim.serve(PORT, server(SECRET, {}));
  await owned.serve(PORT, server("owned", { [wellKnown(tokens[name("wk-private")]!)]: tokens[name("wk-private")]! }));
  await slow.serve(PORT, server("slow", {}, true));
  const at: Record<string, string> = {
    [name("foreign")]: victim.address,
    [name("reverse")]: owned.address,
    [name("wk-private")]: owned.address,
    [name("trickle")]: slow.address,
  };
  dns = await startTinyDns((q) => at[q] ?? null, {
    txt: (q) =>
      // The user's own zone says the token for a name that points at the victim: it proves the name, not the address.
      q === name("foreign")
        ? [`opsbench-verify=${tokens[q]}`]
        : // Whoever answers for the owned address's reverse name vouches for it (the address block's owner).
          q === reverseDnsName(owned.address)
          ? [`opsbench-verify=${tokens[name("reverse")]}`]
          : [],
  });
  await stack.scope.workloads.put({
    name: "read-back",
    spec: workloadSpec.parse({
      kind: "script",
      source: `
import http from "k6/http";
import { check } from "k6";
export const options = { vus: 1, iterations: 2 };
export default function () {
  const r = http.get(__ENV.OPSBENCH_BASE_URL + "/");
  check(r, { ["body=" + String(r.body)]: () => true });
}
`,
    }),
  });
});
afterAll(async () => {
  await dns?.close();
  await Promise.all([victim?.remove(), owned?.remove(), slow?.remove()]);
  await stack?.close();
});

async function runOf(targetName: string) {
  const run = await startRun(stack.scope, stack.queue, { targetName, workloadName: "read-back" });
  return waitForFinal(stack.db, run.id, 120_000);
}

describe("a proof of ownership is bound to the address loaded", () => {
  it("a TXT record on a name pointing at a foreign host that serves no token does not admit that host", async () => {
    // Private ranges opened (the hosts here are 10.231.x): what refuses is the proof, not the range.
    await useWorker({ env: workerEnv({ OPSBENCH_LOAD_PRIVATE_RANGES: PRIVATE_OPEN }) });
    const view = await runOf(name("foreign"));
    expect(view.status).toBe("FAILED");
    expect(view.loadAdmission).toBeNull();
    expect(view.checks.map((c) => c.name).filter((n) => n.includes(SECRET))).toEqual([]);
    expect(view.steps.map((s) => s.name)).not.toContain("LOAD");
    expect(view.error).toContain(`load to ${name("foreign")} refused`);
    expect(view.error).toContain(`${wellKnown(tokens[name("foreign")]!)} at ${victim.address}: answered 404`);
    expect(view.error).toContain(
      `no "opsbench-verify=" TXT record on ${reverseDnsName(victim.address)}, the reverse name of ${victim.address}`,
    );
    expect(view.error).toContain(`a TXT record on ${name("foreign")} itself proves the name, not the address it points to`);
  });

  it("the token in a TXT record on the address's reverse name admits that address (dns-txt)", async () => {
    await useWorker({ env: workerEnv({ OPSBENCH_LOAD_PRIVATE_RANGES: PRIVATE_OPEN }) });
    const view = await runOf(name("reverse"));
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.loadAdmission).toMatchObject({ how: "dns-txt", host: name("reverse"), address: owned.address });
    expect(view.loadAdmission!.detail).toBe(
      `TXT "opsbench-verify=${tokens[name("reverse")]}" on ${reverseDnsName(owned.address)}, the reverse name of ${owned.address}`,
    );
    expect(view.checks.map((c) => c.name)).toEqual(["body=owned"]);
  });

  it("a private address is refused by default, whatever it serves, and is not even asked for the token", async () => {
    await useWorker({ env: workerEnv() });
    const before = await hits(owned);
    const view = await runOf(name("wk-private"));
    expect(view.status).toBe("FAILED");
    expect(view.error).toContain(`load to ${name("wk-private")} refused: opsbench did not start this endpoint`);
    expect(view.error).toContain(
      `; and its address ${owned.address} is in 10.0.0.0/8, a private or shared range, which no proof of ownership or platform's ` +
        "answer admits: only the admin, with a range of OPSBENCH_LOAD_PRIVATE_RANGES (now empty) or the host on OPSBENCH_LOAD_ALLOWED_HOSTS",
    );
    expect(view.error).toMatch(/refused before anything was deployed$/);
    expect(await hits(owned)).toBe(before);
    // The admin opens the range: the same target is admitted by its well-known token.
    await useWorker({ env: workerEnv({ OPSBENCH_LOAD_PRIVATE_RANGES: PRIVATE_OPEN }) });
    const opened = await runOf(name("wk-private"));
    expect(opened.error).toBeNull();
    expect(opened.loadAdmission).toMatchObject({ how: "well-known", address: owned.address });
    expect(await hits(owned)).toBe(before + 1);
  });
});

describe("the OpenFaaS gateway is judged like a typed URL", () => {
  it("a loopback gateway off the allowlist is refused before anything is deployed, not one request to the cluster or the gateway", async () => {
    const requests: string[] = [];
    const record = (who: string) =>
      http.createServer((req, res) => {
        requests.push(`${who} ${req.method} ${req.url}`);
        res.writeHead(500, { "content-type": "application/json" }).end("{}");
      });
    const [kubeApi, gateway] = [record("cluster"), record("gateway")];
    await Promise.all([kubeApi, gateway].map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", r))));
    const kubePort = (kubeApi.address() as AddressInfo).port;
    const gatewayPort = (gateway.address() as AddressInfo).port;
    try {
      // The cluster's API server is allowed (a kubeconfig's server must be); the gateway's port is not.
      await useWorker({ env: workerEnv({ OPSBENCH_LOAD_ALLOWED_HOSTS: `127.0.0.1:${kubePort}` }) });
      const secret: CredentialSecret = { kind: "kubernetes", kubeconfig: kubeconfigYaml(`http://127.0.0.1:${kubePort}`, "gateway-test") };
      await stack.scope.credentials.save({
        name: "faas-kube",
        kind: "kubernetes",
        sealed: stack.scope.credentials.seal("faas-kube", secret, testSecretKey()),
        checkedAt: new Date(),
      });
      await stack.scope.targets.put({
        name: "faas-loopback",
        kind: "kubernetes",
        spec: kubernetesSpec.parse({
          credential: "faas-kube",
          image: "registry.invalid/fn:1",
          flavour: "openfaas-function",
          openfaas: { gateway: `http://127.0.0.1:${gatewayPort}` },
        }),
      });
      const view = await runOf("faas-loopback");
      expect(view.status).toBe("FAILED");
      expect(view.error).toContain(
        `load to 127.0.0.1:${gatewayPort} refused: opsbench did not start this endpoint, and 127.0.0.1:${gatewayPort} is a loopback address`,
      );
      expect(view.error).toContain(`allow it as "127.0.0.1:${gatewayPort}"`);
      expect(view.error).toContain("refused before anything was deployed");
      expect(view.steps.map((s) => s.name)).not.toContain("PROVISION");
      expect(requests).toEqual([]);
    } finally {
      await Promise.all([kubeApi, gateway].map((s) => new Promise((r) => s.close(r))));
    }
  });
});

describe("a proof has a deadline and does not hold the host's load lock", () => {
  it("a trickling proof server fails its run within seconds naming the deadline, and another workspace's run is not kept QUEUED", async () => {
    await useWorker({ env: workerEnv({ OPSBENCH_LOAD_PRIVATE_RANGES: PRIVATE_OPEN }) });
    // Another workspace, its target a loopback stand-in the allowlist admits, run as a study (the study consumer
    // runs beside the single-run one, both under the host's load lock).
    const port = await freePort();
    const standIn = await serveOnHost("127.0.0.1", port);
    const theirs = workspaceScope(stack.db, await newWorkspace(stack.db, "proofs-other"));
    await theirs.targets.put({ name: "their-echo", kind: "endpoint", spec: { url: `http://127.0.0.1:${port}` } });
    await theirs.workloads.put({
      name: "their-gets",
      spec: workloadSpec.parse({
        kind: "script",
        source: `import http from "k6/http";\nexport const options = { vus: 1, iterations: 2 };\nexport default function () { http.get(__ENV.OPSBENCH_BASE_URL + "/"); }\n`,
      }),
    });
    const studyQueue = createStudyQueue(testRedisUrl());
    try {
      const first = await startRun(stack.scope, stack.queue, { targetName: name("trickle"), workloadName: "read-back" });
      // The first run is proving its host (the trickle has begun) before the other workspace asks.
      const until = Date.now() + 20_000;
      while ((await hits(slow)) === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(await hits(slow)).toBe(1);
      const asked = Date.now();
      const { runs } = await startStudy(theirs, studyQueue, {
        name: "beside-a-proof",
        targets: ["their-echo"],
        workloads: ["their-gets"],
        repetitions: 1,
        order: "sequential",
        cooldownSeconds: 0,
        baselineWaitSeconds: 0,
      });
      const second = runs[0]!;
      // Left QUEUED for no longer than it takes a free host to be taken.
      let left = 0;
      while (Date.now() - asked < 60_000) {
        if ((await loadRunView(stack.db, second.id)).status !== "QUEUED") {
          left = Date.now() - asked;
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const firstView = await waitForFinal(stack.db, first.id, 90_000);
      const secondView = await waitForFinal(stack.db, second.id, 90_000);
      expect(left, "the other workspace's run left QUEUED after (ms)").toBeGreaterThan(0);
      expect(left).toBeLessThan(4_000);
      expect(firstView.status).toBe("FAILED");
      expect(firstView.error).toContain(`${wellKnown(tokens[name("trickle")]!)} at ${slow.address}: no whole answer within 5 s`);
      const tookMs = Date.parse(firstView.finishedAt!) - Date.parse(firstView.startedAt!);
      expect(tookMs).toBeLessThan(10_000);
      // Claimed while the first was still proving: the proof did not hold the host, beyond its deadline or within it.
      expect(Date.parse(secondView.startedAt!)).toBeLessThan(Date.parse(firstView.finishedAt!));
      expect(secondView.error).toBeNull();
      expect(secondView.status).toBe("SUCCEEDED");
    } finally {
      await studyQueue.close();
      standIn.kill("SIGKILL");
    }
  });
});
