// The worker's look-ups for a run's load host (load-host-check.ts): its addresses, resolved ONCE (the first is pinned
// and passed to the runner, which loads that address alone), and the two proofs of ownership of that address: a DNS
// TXT record `opsbench-verify=<token>` on its reverse name (in-addr.arpa: the address block's owner answers there, not
// whoever holds the name's zone), or the token served at /.well-known/opsbench-verify/<token> by the pinned address
// itself (one GET, no redirect followed, a small body read). Each proof has a whole deadline (PROOF_DEADLINE_MS): a
// server that trickles its answer, or a name server that never answers, costs the run seconds, not minutes.
import { lookup, Resolver } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { dnsVerifyRecord, isIpAddress, policyHost, reverseDnsName, wellKnownVerifyPath } from "@opsbench/core";

/** A proof's whole deadline: connection, answer and body for the well-known GET; every query for the TXT record. */
export const PROOF_DEADLINE_MS = 5000;
const DEADLINE = `${PROOF_DEADLINE_MS / 1000} s`;

/** How the worker resolves names: the system's resolver, or the name servers of OPSBENCH_DNS_SERVERS. */
export interface HostResolver {
  /** IPv4 addresses, then IPv6 ones, in the order the answer gave them. */
  addresses(host: string): Promise<{ v4: string[]; v6: string[] }>;
  txt(host: string): Promise<string[]>;
}

/** OPSBENCH_DNS_SERVERS: "ip" or "ip:port" entries, comma-separated; empty: the system's resolver (and /etc/hosts). */
export function hostResolver(servers: string[] = []): HostResolver {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (servers.length) resolver.setServers(servers);
  const settled = <T>(p: Promise<T[]>) =>
    p.catch((err: NodeJS.ErrnoException) => (err.code === "ENODATA" || err.code === "ENOTFOUND" ? [] : Promise.reject(err)));
  return {
    async addresses(host) {
      if (!servers.length) {
        const all = await lookup(host, { all: true, order: "ipv4first" });
        return { v4: all.filter((a) => a.family === 4).map((a) => a.address), v6: all.filter((a) => a.family === 6).map((a) => a.address) };
      }
      const [v4, v6] = await Promise.all([settled(resolver.resolve4(host)), settled(resolver.resolve6(host))]);
      if (!v4.length && !v6.length) throw new Error(`no address for ${host} at ${servers.join(", ")}`);
      return { v4, v6 };
    },
    async txt(host) {
      return (await settled(resolver.resolveTxt(host))).map((chunks) => chunks.join(""));
    },
  };
}

export interface ProofOutcome {
  ok: boolean;
  /** What was found, in words: for the run's record when ok, for the refusal when not. */
  found: string;
}

/**
 * The TXT proof of `address` (the pinned one): a record `opsbench-verify=<token>` on its reverse name. `host` is the
 * target's host as typed, named in the refusal: a record on the name itself proves the name, not where it points.
 */
export async function dnsTxtProof(resolver: HostResolver, address: string, host: string, token: string): Promise<ProofOutcome> {
  const at = reverseDnsName(address);
  const where = `${at}, the reverse name of ${address}`;
  const nameOnly = isIpAddress(host) ? "" : ` (a TXT record on ${host} itself proves the name, not the address it points to)`;
  let records: string[];
  try {
    records = await withDeadline(resolver.txt(at), `no answer within ${DEADLINE}`);
  } catch (err) {
    return { ok: false, found: `no TXT record on ${where} read (${(err as Error).message})${nameOnly}` };
  }
  const want = dnsVerifyRecord(token);
  if (records.some((r) => r.trim() === want)) return { ok: true, found: `TXT "${want}" on ${where}` };
  const ours = records.filter((r) => r.startsWith("opsbench-verify="));
  return {
    ok: false,
    found: ours.length
      ? `TXT records on ${where}, hold another token (${ours.join(", ")})${nameOnly}`
      : `no "opsbench-verify=" TXT record on ${where}${nameOnly}`,
  };
}

function withDeadline<T>(p: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), PROOF_DEADLINE_MS);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const BODY_LIMIT = 1024;

/**
 * The well-known proof: GET <scheme>://<host>:<port>/.well-known/opsbench-verify/<token> sent to `address` (the pinned
 * one; the URL's name stays in Host and TLS SNI). Passes on a 200 whose body is the token; a redirect is never
 * followed (it would be another host's word). The whole request, body included, ends within PROOF_DEADLINE_MS.
 */
export function wellKnownProof(url: URL, address: string, token: string, signal?: AbortSignal): Promise<ProofOutcome> {
  const path = wellKnownVerifyPath(token);
  const where = `${url.protocol}//${url.host}${path}`;
  const host = policyHost(url.hostname);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const https_ = url.protocol === "https:";
  return new Promise((resolve) => {
    let settled = false;
    let deadline: NodeJS.Timeout | undefined;
    const done = (ok: boolean, found: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ok, found: `${where} at ${address}: ${found}` });
    };
    const req = (https_ ? https : http).request(
      {
        host: address,
        port,
        path,
        method: "GET",
        headers: { host: url.host, "user-agent": "opsbench-verify", accept: "text/plain" },
        ...(https_ && !isIpAddress(host) ? { servername: host } : {}),
        ...(signal ? { signal } : {}),
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.destroy();
          return done(false, `answered ${status} (a redirect to ${res.headers.location ?? "nowhere"}, not followed)`);
        }
        let body = "";
        let tooBig = false;
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
          if (body.length > BODY_LIMIT) {
            tooBig = true;
            res.destroy();
          }
        });
        const end = () => {
          if (tooBig) return done(false, `answered ${status} with a body over ${BODY_LIMIT} bytes`);
          if (status !== 200) return done(false, `answered ${status}`);
          if (body.trim() === token) return done(true, "answered 200 with the token");
          done(false, "answered 200 without the token as its body");
        };
        res.on("end", end);
        res.on("close", () => (tooBig || !res.complete ? (tooBig ? end() : done(false, "closed before its answer ended")) : undefined));
      },
    );
    // A whole deadline, not an idle one: a server sending a byte now and then would otherwise keep the run waiting.
    deadline = setTimeout(() => {
      done(false, `no whole answer within ${DEADLINE} (a proof's deadline, its body included)`);
      req.destroy();
    }, PROOF_DEADLINE_MS);
    req.on("error", (err) => done(false, `no answer (${err.message})`));
    req.end();
  });
}
