// Network namespaces for isolated placements (network: "namespaces"): one
// namespace per process, each with a veth into a private bridge, as container
// runtimes do, so calls between isolation domains leave the loopback fast path.
// Needs root and iproute2; when that fails, the caller falls back to loopback
// and records why (docs/local-engine.md, "Placement").
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface NetworkState {
  /** Short id in every name this deployment made (bridge, veths, namespaces). */
  id: string;
  bridge: string;
  /** First two octets of the /16 the bridge serves, e.g. "10.213". */
  prefix: string;
  namespaces: string[];
}

export async function ip(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run("ip", args, { timeout: 10_000 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`ip ${args.join(" ")}: ${(e.stderr || e.message).trim()}`);
  }
}

/** Creates the deployment's bridge on a free 10.x.0.0/16. Throws with the reason if not permitted. */
export async function createNetwork(): Promise<NetworkState> {
  if (process.platform !== "linux") throw new Error(`network namespaces need Linux (this is ${process.platform})`);
  const id = randomBytes(3).toString("hex");
  const used = await ip("-o", "-4", "addr", "show").catch(() => "");
  const taken = new Set([...used.matchAll(/inet (\d+\.\d+)\./g)].map((m) => m[1]));
  let prefix: string | null = null;
  const start = 200 + (parseInt(id, 16) % 50);
  for (let i = 0; i < 50 && !prefix; i++) {
    const p = `10.${200 + ((start - 200 + i) % 50)}`;
    if (!taken.has(p)) prefix = p;
  }
  if (!prefix) throw new Error("no free 10.200-249.0.0/16 network for the bridge");
  const net: NetworkState = { id, bridge: `ob${id}br`, prefix, namespaces: [] };
  try {
    await ip("link", "add", net.bridge, "type", "bridge");
    await ip("addr", "add", `${prefix}.0.1/16`, "dev", net.bridge);
    await ip("link", "set", net.bridge, "up");
  } catch (err) {
    await removeNetwork(net);
    throw err;
  }
  return net;
}

/** The address of the k-th namespace of a network. */
function addressOf(net: NetworkState, k: number): string {
  const n = k + 2;
  return `${net.prefix}.${Math.floor(n / 256)}.${n % 256}`;
}

/** Adds a namespace with its own address on the bridge; records it in `net` before it exists, for teardown. */
export async function addNamespace(net: NetworkState): Promise<{ ns: string; address: string }> {
  const k = net.namespaces.length;
  if (k > 60_000) throw new Error("too many network namespaces for one deployment");
  const ns = `ob${net.id}-${k}`;
  const veth = `ob${net.id}v${k}`.slice(0, 15);
  const address = addressOf(net, k);
  net.namespaces.push(ns);
  await ip("netns", "add", ns);
  await ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns);
  await ip("link", "set", veth, "master", net.bridge, "up");
  await ip("-n", ns, "addr", "add", `${address}/16`, "dev", "eth0");
  await ip("-n", ns, "link", "set", "eth0", "up");
  await ip("-n", ns, "link", "set", "lo", "up");
  return { ns, address };
}

/** Runs a command inside a namespace (`ip netns exec` execs it: the pid stays the command's). */
export function inNamespace(ns: string, command: string[]): string[] {
  return ["ip", "netns", "exec", ns, ...command];
}

/** Removes namespaces (their veths go with them). Returns what could not be removed; already gone is fine. */
export async function removeNamespaces(namespaces: string[]): Promise<string[]> {
  const left: string[] = [];
  for (const ns of namespaces) {
    await ip("netns", "del", ns).catch((err: Error) => {
      if (!/No such file|not found|does not exist/i.test(err.message)) left.push(`${ns}: ${err.message}`);
    });
  }
  return left;
}

/** Removes every namespace of the network and its bridge. Returns what could not be removed. */
export async function removeNetwork(net: Partial<NetworkState>): Promise<string[]> {
  const left = await removeNamespaces(net.namespaces ?? []);
  if (net.bridge) {
    await ip("link", "del", net.bridge).catch((err: Error) => {
      if (!/Cannot find device|does not exist|not found/i.test(err.message)) left.push(`${net.bridge}: ${err.message}`);
    });
  }
  return left;
}
