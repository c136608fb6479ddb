// Hosts of our own for tests of routed egress (issue 21): each "remote host" is a network namespace with its own
// address on a veth pair (10.231.N.2/30, the host's end 10.231.N.1/30), reached from this machine through its routes
// like any other host, with the echo benchapp listening there. Nothing leaves the machine: the namespaces are the
// only addresses involved. Each namespace is noted with the pid of the process that made it; namespaces whose maker is
// gone (a test process killed mid-file) are removed by the next `makeRemoteHost`.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const NOTES = path.join(os.tmpdir(), "opsbench-remote-hosts");
/** Namespaces (and their host-side veth, `<name>h`) of this helper: "obrh" and six hex digits. */
const NAME = /^obrh[0-9a-f]{6}$/;
const ECHO = path.resolve(import.meta.dirname, "../benchapps/echo/node/server.js");

export interface RemoteHost {
  /** The namespace's name. */
  ns: string;
  /** Its address: what a target names. */
  address: string;
  /** This machine's address on the veth to it (an address of the host, as the gateway of a real network would be). */
  hostAddress: string;
  /** Starts the echo benchapp (or `code`, a Node program reading PORT) in the namespace on `port`, all its addresses; resolves once it answers. */
  serve(port: number, code?: string): Promise<void>;
  /** Stops what it serves and removes the namespace (the veth goes with it). */
  remove(): Promise<void>;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function removeNamespace(ns: string): Promise<void> {
  // Its processes first: a namespace with a process in it outlives `ip netns del` (the veth too).
  const pids = await run("ip", ["netns", "pids", ns]).then(
    (r) => r.stdout.split(/\s+/).filter(Boolean).map(Number),
    () => [],
  );
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
  await run("ip", ["netns", "del", ns]).catch(() => {});
  await run("ip", ["link", "del", `${ns}h`]).catch(() => {});
  rmSync(path.join(NOTES, ns), { force: true });
}

/** Removes the remote hosts whose maker is no longer running. */
export async function sweepRemoteHosts(): Promise<string[]> {
  mkdirSync(NOTES, { recursive: true });
  const removed: string[] = [];
  for (const ns of readdirSync(NOTES).filter((n) => NAME.test(n))) {
    const pid = Number(readFileSync(path.join(NOTES, ns), "utf8"));
    if (pid && alive(pid)) continue;
    await removeNamespace(ns);
    removed.push(ns);
  }
  return removed;
}

/** A free 10.231.N.0/30 (N and the last octet random), not on any interface of this machine. */
async function freeSubnet(): Promise<{ hostAddress: string; address: string }> {
  const used = (await run("ip", ["-o", "-4", "addr", "show"])).stdout;
  for (let attempt = 0; attempt < 50; attempt++) {
    const [b, c] = randomBytes(2);
    const base = c! & 0xfc;
    const [hostAddress, address] = [`10.231.${b}.${base + 1}`, `10.231.${b}.${base + 2}`];
    if (!used.includes(`inet 10.231.${b}.${base}`) && !used.includes(`inet ${hostAddress}/`) && !used.includes(`inet ${address}/`))
      return { hostAddress, address };
  }
  throw new Error("no free 10.231.0.0/16 subnet for a remote host");
}

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export async function makeRemoteHost(): Promise<RemoteHost> {
  await sweepRemoteHosts();
  const ns = `obrh${randomBytes(3).toString("hex")}`;
  writeFileSync(path.join(NOTES, ns), String(process.pid));
  const children: ChildProcess[] = [];
  const removeAll = async () => {
    for (const c of children) c.kill("SIGKILL");
    await removeNamespace(ns);
  };
  try {
    const { hostAddress, address } = await freeSubnet();
    const dev = `${ns}h`;
    await run("ip", ["netns", "add", ns]);
    await run("ip", ["link", "add", dev, "type", "veth", "peer", "name", "eth0", "netns", ns]);
    await run("ip", ["link", "set", dev, "addrgenmode", "none"]);
    await run("ip", ["addr", "add", `${hostAddress}/30`, "dev", dev]);
    await run("ip", ["link", "set", dev, "up"]);
    for (const cmd of [
      ["link", "set", "eth0", "addrgenmode", "none"],
      ["addr", "add", `${address}/30`, "dev", "eth0"],
      ["link", "set", "eth0", "up"],
      ["link", "set", "lo", "up"],
      // No default route: like a host elsewhere, it answers only what comes from its own link (so load from k6's
      // namespace reaches it only masqueraded behind this machine's address).
    ])
      await run("ip", ["-n", ns, ...cmd]);
    return {
      ns,
      address,
      hostAddress,
      async serve(port: number, code?: string) {
        const child = spawn("ip", ["netns", "exec", ns, process.execPath, ...(code === undefined ? [ECHO] : ["-e", code])], {
          env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST: "0.0.0.0" },
          stdio: "ignore",
        });
        children.push(child);
        const until = Date.now() + 15_000;
        while (!(await answers(address, port))) {
          if (Date.now() > until) throw new Error(`the echo benchapp in ${ns} does not answer on ${address}:${port}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      },
      remove: removeAll,
    };
  } catch (err) {
    await removeAll();
    throw err;
  }
}

/** Starts the echo benchapp on this machine at `host:port` (e.g. a remote host's `hostAddress`: a service of the host). */
export async function serveOnHost(host: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [ECHO], { env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST: host }, stdio: "ignore" });
  const until = Date.now() + 15_000;
  while (!(await answers(host, port))) {
    if (Date.now() > until) throw new Error(`the echo benchapp does not answer on ${host}:${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return child;
}

/**
 * A tiny DNS server on 127.0.0.1 (UDP) answering A queries: `answer(name, n)` gives the address (or several) for the
 * n-th query (from 1) of `name`, or null for NXDOMAIN. `more` answers TXT and AAAA queries (none: an empty answer).
 * Counts the queries it gets, so a test can see a name resolved once.
 */
export async function startTinyDns(
  answer: (name: string, n: number) => string | string[] | null,
  more: { txt?: (name: string) => string[]; aaaa?: (name: string) => string[] } = {},
) {
  const dgram = await import("node:dgram");
  const { isIPv6 } = await import("node:net");
  const socket = dgram.createSocket("udp4");
  const queries: string[] = [];
  const record = (type: number, data: Buffer) => {
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the name, as in the question
    rr.writeUInt16BE(type, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(0, 6); // TTL 0: a resolver that asked again would get the next answer
    rr.writeUInt16BE(data.length, 10);
    return Buffer.concat([rr, data]);
  };
  const v6Bytes = (a: string) => {
    const [head = "", tail = ""] = a.split("::");
    const h = head ? head.split(":") : [];
    const t = tail ? tail.split(":") : [];
    const groups = a.includes("::") ? [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t] : h;
    const b = Buffer.alloc(16);
    for (const [i, g] of groups.entries()) b.writeUInt16BE(Number.parseInt(g, 16), i * 2);
    return b;
  };
  socket.on("message", (msg, rinfo) => {
    if (msg.length < 12) return;
    // The question: labels from byte 12, then type and class.
    const labels: string[] = [];
    let i = 12;
    while (i < msg.length && msg[i] !== 0) {
      const len = msg[i]!;
      labels.push(msg.subarray(i + 1, i + 1 + len).toString("ascii"));
      i += 1 + len;
    }
    const questionEnd = i + 5;
    const type = msg.readUInt16BE(i + 1);
    const name = labels.join(".").toLowerCase();
    if (type === 1) queries.push(name);
    const n = queries.filter((q) => q === name).length;
    let records: Buffer[] = [];
    let nxdomain = false;
    if (type === 1) {
      const a = answer(name, n);
      nxdomain = a === null;
      records = (a === null ? [] : [a].flat()).map((addr) => record(1, Buffer.from(addr.split(".").map(Number))));
    } else if (type === 16) {
      records = (more.txt?.(name) ?? []).map((t) => {
        const text = Buffer.from(t, "utf8");
        return record(16, Buffer.concat([Buffer.from([text.length]), text]));
      });
    } else if (type === 28) {
      records = (more.aaaa?.(name) ?? []).filter((a) => isIPv6(a)).map((a) => record(28, v6Bytes(a)));
    }
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2); // id
    // QR, opcode 0, AA, RD copied; RA; rcode NOERROR or NXDOMAIN (an A query with no answer).
    header.writeUInt16BE(0x8400 | (msg.readUInt16BE(2) & 0x0100) | 0x0080 | (nxdomain ? 3 : 0), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records.length, 6);
    socket.send(Buffer.concat([header, msg.subarray(12, questionEnd), ...records]), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const port = socket.address().port;
  return {
    /** `127.0.0.1:<port>`, for a resolver's servers. */
    server: `127.0.0.1:${port}`,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
