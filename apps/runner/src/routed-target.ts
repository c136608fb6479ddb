// A remote target's address for routed egress (docs/security.md "Remote targets"): the runner resolves the target's
// host ONCE, before anything is made, and pins that address for the whole run. k6's load network admits only that
// address and the target's port, and k6 has no DNS inside its sandbox: a name reaches k6 as a `hosts` entry (so the
// URL, the Host header and TLS SNI keep the name), and a later answer of the name server (rebinding) changes nothing.
import { lookup } from "node:dns/promises";
import { networkInterfaces } from "node:os";
import { type ProtectedPort, protectedPortVerdict } from "@opsbench/core";
import { ALWAYS_BLOCKED_RANGES, SandboxRefused } from "./k6-sandbox";

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

function ipv4Number(a: string): number {
  return a.split(".").reduce((acc, p) => acc * 256 + Number(p), 0);
}

/** Whether IPv4 `address` is in `cidr` (IPv6 ranges never hold an IPv4 address here). */
export function inIpv4Range(address: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split("/");
  if (!base || !IPV4.test(base) || !IPV4.test(address)) return false;
  const bits = bitsText === undefined ? 32 : Number(bitsText);
  if (!(bits >= 0 && bits <= 32)) return false;
  const size = 2 ** (32 - bits);
  return Math.floor(ipv4Number(address) / size) === Math.floor(ipv4Number(base) / size);
}

export interface PinnedTarget {
  /** The target's host as the URL names it. */
  host: string;
  /** The one IPv4 address load goes to. */
  address: string;
  /** A `hosts` entry for k6 (name → address) when the URL names a host, null for an address. */
  hosts: Record<string, string> | null;
}

/** Why the sandbox cannot route to this host (a problem: refused, or unsandboxed where the admin allows it), or null. */
export function routedHostProblem(host: string): string | null {
  if (host.startsWith("[") || host.includes(":")) return `its network routes to IPv4 targets only, not ${host}`;
  return null;
}

/**
 * Resolves `host` once and judges the address: never loopback (a name that resolves there would bypass the
 * loopback rules, which allow an address:port), the always-blocked ranges (the metadata service), the admin's
 * blocked ranges, an address of this machine itself, or a port of opsbench's own services. A refusal throws
 * SandboxRefused (never run unsandboxed instead).
 */
export async function pinTarget(
  host: string,
  port: number,
  opts: { blockedRanges: string[]; blockPorts: readonly ProtectedPort[]; resolve?: (host: string) => Promise<string[]> },
): Promise<PinnedTarget> {
  let address: string;
  if (IPV4.test(host)) address = host;
  else {
    const resolve =
      opts.resolve ?? (async (h: string) => (await lookup(h, { all: true, family: 4 })).map((a: { address: string }) => a.address));
    const addresses = await resolve(host).catch((err: Error) => {
      throw new SandboxRefused(`load to ${host} refused: the runner could not resolve it (${err.message})`);
    });
    const first = addresses.find((a) => IPV4.test(a));
    if (!first) throw new SandboxRefused(`load to ${host} refused: it has no IPv4 address (the load network routes IPv4 only)`);
    address = first;
  }
  const named = address === host ? host : `${host} (${address})`;
  if (inIpv4Range(address, "127.0.0.0/8"))
    throw new SandboxRefused(
      `load to ${named} refused: a name that resolves to loopback is not loaded; name a loopback target by its address (the allowlist's address:port rule)`,
    );
  const blocked = [...ALWAYS_BLOCKED_RANGES, ...opts.blockedRanges].find((r) => inIpv4Range(address, r));
  if (blocked) throw new SandboxRefused(`load to ${named} refused: the address is in ${blocked}, which k6 never reaches`);
  const own = Object.values(networkInterfaces())
    .flat()
    .some((i) => i?.address === address);
  if (own)
    throw new SandboxRefused(
      `load to ${named} refused: it is an address of the runner's own machine, which the load network never reaches (name a target on this machine by its loopback address)`,
    );
  const hit = protectedPortVerdict(`http://${address}:${port}`, opts.blockPorts);
  if (hit) throw new SandboxRefused(hit.message);
  return { host, address, hosts: address === host ? null : { [host]: address } };
}
