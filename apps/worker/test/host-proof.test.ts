// The worker's proofs of host ownership (src/pipeline/host-proof.ts) against real servers on loopback and a tiny DNS
// server: the well-known token passes only as a 200 whose body is the token, sent to the pinned address with the
// name in Host, and a redirect is never followed, and a server trickling its answer is cut at the proof's deadline;
// the TXT record passes only with the workspace's own token on the address's reverse name.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTinyDns } from "../../../tests/remote-hosts";
import { dnsTxtProof, hostResolver, PROOF_DEADLINE_MS, wellKnownProof } from "../src/pipeline/host-proof";

const TOKEN = "a".repeat(40);
let server: http.Server;
let port: number;
let followed = 0;
const hosts: string[] = [];
let dns: Awaited<ReturnType<typeof startTinyDns>>;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hosts.push(req.headers.host ?? "");
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/followed") {
      followed++;
      return res.end(TOKEN);
    }
    const tokenAt = `/.well-known/opsbench-verify/${TOKEN}`;
    if (req.headers.host?.startsWith("good.")) return res.end(`${TOKEN}\n`);
    if (req.headers.host?.startsWith("redirect.")) {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/followed` });
      return res.end();
    }
    if (req.headers.host?.startsWith("big.")) return res.end(`${TOKEN}${"x".repeat(5000)}`);
    if (req.headers.host?.startsWith("trickle.")) {
      res.writeHead(200);
      const t = setInterval(() => res.write("x"), 500);
      res.on("close", () => clearInterval(t));
      return;
    }
    if (req.headers.host?.startsWith("other.") && path === tokenAt) return res.end("b".repeat(40));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  dns = await startTinyDns((name) => (name === "two.example.test" ? ["10.231.0.2", "10.231.0.6"] : null), {
    txt: (name) =>
      name === "2.0.231.10.in-addr.arpa" || name === "txt.example.test"
        ? ["unrelated", `opsbench-verify=${TOKEN}`]
        : name === "6.0.231.10.in-addr.arpa"
          ? [`opsbench-verify=${"b".repeat(40)}`]
          : [],
    aaaa: (name) => (name === "v6.example.test" || name === "two.example.test" ? ["2001:db8::5"] : []),
  });
});
afterAll(async () => {
  await dns?.close();
  await new Promise((r) => server?.close(r));
});

const proof = (host: string) => wellKnownProof(new URL(`http://${host}:${port}`), "127.0.0.1", TOKEN);

describe("the well-known proof", () => {
  it("passes on 200 with the token as the body, asked of the pinned address with the name in Host", async () => {
    hosts.length = 0;
    expect(await proof("good.example.test")).toEqual({
      ok: true,
      found: `http://good.example.test:${port}/.well-known/opsbench-verify/${TOKEN} at 127.0.0.1: answered 200 with the token`,
    });
    expect(hosts).toEqual([`good.example.test:${port}`]);
  });

  it("fails on another token, on 404, on a body over the limit, and where nothing listens", async () => {
    expect(await proof("other.example.test")).toMatchObject({
      ok: false,
      found: expect.stringContaining("answered 200 without the token as its body"),
    });
    expect(await proof("none.example.test")).toMatchObject({ ok: false, found: expect.stringMatching(/answered 404$/) });
    expect(await proof("big.example.test")).toMatchObject({ ok: false, found: expect.stringContaining("over 1024 bytes") });
    const closed = await wellKnownProof(new URL("http://gone.example.test:9"), "127.0.0.1", TOKEN);
    expect(closed).toMatchObject({ ok: false, found: expect.stringContaining("no answer (connect ECONNREFUSED 127.0.0.1:9)") });
  });

  it("gives up on a server that trickles its answer at the whole deadline, not at an idle timeout", async () => {
    const started = Date.now();
    expect(await proof("trickle.example.test")).toMatchObject({
      ok: false,
      found: expect.stringContaining(`at 127.0.0.1: no whole answer within ${PROOF_DEADLINE_MS / 1000} s`),
    });
    expect(Date.now() - started).toBeLessThan(PROOF_DEADLINE_MS + 1500);
  });

  it("never follows a redirect, even to a place that answers with the token", async () => {
    const r = await proof("redirect.example.test");
    expect(r).toEqual({
      ok: false,
      found: expect.stringContaining(`answered 302 (a redirect to http://127.0.0.1:${port}/followed, not followed)`),
    });
    expect(followed).toBe(0);
  });
});

describe("the DNS TXT proof and the resolver", () => {
  it("passes only with the workspace's own token on the reverse name of the address, never on the name alone", async () => {
    const resolver = hostResolver([dns.server]);
    expect(await dnsTxtProof(resolver, "10.231.0.2", "a.example.test", TOKEN)).toEqual({
      ok: true,
      found: `TXT "opsbench-verify=${TOKEN}" on 2.0.231.10.in-addr.arpa, the reverse name of 10.231.0.2`,
    });
    expect(await dnsTxtProof(resolver, "10.231.0.6", "a.example.test", TOKEN)).toMatchObject({
      ok: false,
      found: expect.stringContaining("hold another token"),
    });
    // txt.example.test holds the token itself, but its address's reverse name does not.
    expect(await dnsTxtProof(resolver, "10.231.0.10", "txt.example.test", TOKEN)).toEqual({
      ok: false,
      found:
        'no "opsbench-verify=" TXT record on 10.0.231.10.in-addr.arpa, the reverse name of 10.231.0.10 (a TXT record on txt.example.test itself proves the name, not the address it points to)',
    });
  });

  it("gives every address of a name, IPv4 in the answer's order, then IPv6", async () => {
    const resolver = hostResolver([dns.server]);
    expect(await resolver.addresses("two.example.test")).toEqual({ v4: ["10.231.0.2", "10.231.0.6"], v6: ["2001:db8::5"] });
    expect(await resolver.addresses("v6.example.test")).toEqual({ v4: [], v6: ["2001:db8::5"] });
    await expect(resolver.addresses("nowhere.example.test")).rejects.toThrow(/no address for nowhere.example.test/);
  });
});
