// The load generator's network (docs/security.md): a namespace of its own whose
// only way out is one veth to the host, where nftables lets exactly one thing
// through. For a target on this machine's loopback: the target's port, rewritten
// to the target's loopback address. For a remote target ("routed egress"): the
// target's one pinned address and port, forwarded and masqueraded out of the
// host's own interfaces. Everything else from the namespace (Postgres and Redis on
// loopback, any address of the host itself, other host ports, the metadata service,
// private ranges, the internet) is dropped. An IP blacklist alone cannot do this
// when the target and the backing services share 127.0.0.1.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import { ip } from "./netns";

const run = promisify(execFile);

export interface LoadNetwork {
  /** The namespace to run the load generator in (`ip netns exec <ns>`). */
  ns: string;
  /** nftables table (family inet) holding this network's rules. */
  table: string;
  /** Host end of the veth. */
  hostDevice: string;
  /** What the load generator calls instead of the target's loopback address (same port); its default route for a remote target. */
  gateway: string;
  /** A remote target's pinned address: the one address (and the target's port) the namespace may reach; null for loopback. */
  remote: string | null;
}

/** Why this host cannot forward a load network's packets to a remote target, or null when it can. */
export function routedEgressProblem(): string | null {
  if (process.platform !== "linux") return `network namespaces need Linux (this is ${process.platform})`;
  try {
    const forward = readFileSync("/proc/sys/net/ipv4/ip_forward", "utf8").trim();
    return forward === "1"
      ? null
      : "IPv4 forwarding is off on this host (net.ipv4.ip_forward=0), so no load network can route to a remote target";
  } catch (err) {
    return `cannot read net.ipv4.ip_forward: ${(err as Error).message}`;
  }
}

/** Whether `host` is this machine's loopback (the only targets the load network can reach so far). */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "[::1]" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Runs a tool with a script on stdin (`nft -f -`, `ip -batch -`): one process for many commands. */
async function withStdin(command: string, args: string[], script: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = execFile(command, args, { timeout: 10_000 }, (err, _out, stderr) =>
      err ? reject(new Error(`${command} ${args.join(" ")}: ${(stderr || err.message).trim()}`)) : resolve(),
    );
    child.stdin?.end(script);
  });
}

/** A free 10.250-251.x.y/30 (gateway .1, load generator .2), avoiding addresses in use on the host. */
async function freeSubnet(): Promise<{ gateway: string; inside: string }> {
  const used = await ip("-o", "-4", "addr", "show").catch(() => "");
  for (let attempt = 0; attempt < 50; attempt++) {
    const [a, b, c] = randomBytes(3);
    const prefix = `10.${250 + (a! % 2)}.${b}`;
    const base = c! & 0xfc;
    const [gateway, inside] = [`${prefix}.${base + 1}`, `${prefix}.${base + 2}`];
    if (!used.includes(`inet ${gateway}/`) && !used.includes(`inet ${inside}/`)) return { gateway, inside };
  }
  throw new Error("no free 10.250.0.0/15 subnet for the load generator's network");
}

/**
 * Turns on route_localnet for the veth's host end. In a container /proc/sys is read-only; there the
 * container's `net.ipv4.conf.all.route_localnet=1` (compose `sysctls`) does the same, since the kernel
 * ORs `all` with the device's own setting. Throws when neither is possible.
 */
function allowRouteLocalnet(device: string): void {
  try {
    writeFileSync(`/proc/sys/net/ipv4/conf/${device}/route_localnet`, "1");
  } catch (err) {
    const all = (() => {
      try {
        return readFileSync("/proc/sys/net/ipv4/conf/all/route_localnet", "utf8").trim();
      } catch {
        return "";
      }
    })();
    if (all !== "1") throw err;
  }
}

/**
 * Makes the namespace and the one path out: to `127.0.0.1:port` (a loopback target), or, given `remote` (an IPv4
 * address the caller resolved once and pins for the run), to `remote:port` through the host's routes. Needs root,
 * iproute2 and nft; throws with the reason otherwise (after removing what it made).
 */
export async function createLoadNetwork(target: { port: number; remote?: string }): Promise<LoadNetwork> {
  if (process.platform !== "linux") throw new Error(`network namespaces need Linux (this is ${process.platform})`);
  const remote = target.remote ?? null;
  if (remote !== null && !/^\d{1,3}(\.\d{1,3}){3}$/.test(remote)) throw new Error(`a routed target must be an IPv4 address, not ${remote}`);
  if (!Number.isInteger(target.port) || target.port < 1 || target.port > 65535) throw new Error(`no such port: ${target.port}`);
  const id = randomBytes(3).toString("hex");
  const net: LoadNetwork = { ns: `obk6${id}`, table: `obk6${id}`, hostDevice: `obk6${id}h`, gateway: "", remote };
  try {
    const { gateway, inside } = await freeSubnet();
    net.gateway = gateway;
    // Few processes: under load each `ip` costs tens of milliseconds to start.
    await withStdin(
      "ip",
      ["-batch", "-"],
      [
        `netns add ${net.ns}`,
        `link add ${net.hostDevice} type veth peer name eth0 netns ${net.ns}`,
        // No IPv6 on either end: nothing to reach, nothing to filter.
        `link set ${net.hostDevice} addrgenmode none`,
        `addr add ${gateway}/30 dev ${net.hostDevice}`,
        `link set ${net.hostDevice} up`,
      ].join("\n"),
    );
    // Lets the DNAT below send this veth's packets to 127.0.0.1 (nothing passes before the rules exist).
    if (remote === null) allowRouteLocalnet(net.hostDevice);
    await withStdin(
      "ip",
      ["-n", net.ns, "-batch", "-"],
      [
        "link set eth0 addrgenmode none",
        `addr add ${inside}/30 dev eth0`,
        "link set eth0 up",
        "link set lo up",
        // A remote target is reached through the host's routes; the rules below decide what may go.
        ...(remote === null ? [] : [`route add default via ${gateway}`]),
      ].join("\n"),
    );
    await withStdin("nft", ["-f", "-"], remote === null ? loopbackRules(net, target.port) : routedRules(net, inside, remote, target.port));
    return net;
  } catch (err) {
    await removeLoadNetwork(net);
    throw err;
  }
}

/** A loopback target: the gateway's port is DNATed to 127.0.0.1; nothing else reaches the host, nothing is forwarded. */
function loopbackRules(net: LoadNetwork, port: number): string {
  const dev = `"${net.hostDevice}"`;
  return `table inet ${net.table} {
  chain to_target { type nat hook prerouting priority dstnat; iifname ${dev} ip daddr ${net.gateway} tcp dport ${port} dnat ip to 127.0.0.1:${port}; }
  chain host_in { type filter hook input priority filter; iifname ${dev} ip daddr 127.0.0.1 tcp dport ${port} ct status dnat accept; iifname ${dev} drop; }
  chain pass_through { type filter hook forward priority filter; iifname ${dev} drop; }
}
`;
}

/**
 * A remote target (routed egress): the namespace's packets to `remote:port` (TCP) are forwarded and masqueraded
 * behind the host's address on the way out; their answers come back. Nothing from the namespace is delivered to the
 * host itself (any of its addresses, any port), nothing else is forwarded (another address, another port of the
 * target's host, UDP such as DNS, the metadata address), and nothing from elsewhere may open a connection into it.
 */
function routedRules(net: LoadNetwork, inside: string, remote: string, port: number): string {
  const dev = `"${net.hostDevice}"`;
  return `table inet ${net.table} {
  chain host_in { type filter hook input priority filter; iifname ${dev} drop; }
  chain pass_through {
    type filter hook forward priority filter;
    iifname ${dev} ip saddr ${inside} ip daddr ${remote} tcp dport ${port} accept;
    iifname ${dev} drop;
    oifname ${dev} ct state established,related accept;
    oifname ${dev} drop;
  }
  chain masquerade_out { type nat hook postrouting priority srcnat; iifname ${dev} ip saddr ${inside} ip daddr ${remote} tcp dport ${port} masquerade; }
}
`;
}

/** Removes the rules and the namespace (its veth goes with it). Returns what could not be removed. */
export async function removeLoadNetwork(net: Pick<LoadNetwork, "ns" | "table">): Promise<string[]> {
  const left: string[] = [];
  await run("nft", ["delete", "table", "inet", net.table], { timeout: 10_000 }).catch((err: { stderr?: string; message: string }) => {
    const msg = (err.stderr || err.message).trim();
    if (!/No such file|does not exist/i.test(msg)) left.push(`nft table ${net.table}: ${msg}`);
  });
  await ip("netns", "del", net.ns).catch((err: Error) => {
    if (!/No such file|not found|does not exist/i.test(err.message)) left.push(`${net.ns}: ${err.message}`);
  });
  return left;
}

/** Load generator namespaces and tables share one name: "obk6" and six hex digits (createLoadNetwork). */
const LOAD_NETWORK_NAME = /^obk6[0-9a-f]{6}$/;

/**
 * The load networks on this machine (their namespaces and nftables tables), by name. A worker
 * killed during a load leaves its own behind; the worker's start sweeps those whose run is final.
 * Empty where `ip` or `nft` is missing or not allowed.
 */
export async function listLoadNetworks(): Promise<string[]> {
  const names = new Set<string>();
  const namespaces = await ip("netns", "list").catch(() => "");
  for (const line of namespaces.split("\n")) {
    const name = line.trim().split(/\s+/)[0] ?? "";
    if (LOAD_NETWORK_NAME.test(name)) names.add(name);
  }
  const tables = await run("nft", ["list", "tables", "inet"], { timeout: 10_000 }).then(
    (r) => r.stdout,
    () => "",
  );
  for (const line of tables.split("\n")) {
    const name = /^table inet (\S+)$/.exec(line.trim())?.[1] ?? "";
    if (LOAD_NETWORK_NAME.test(name)) names.add(name);
  }
  return [...names];
}
