// The address a request comes from, for throttling sign-in and for sessions. Next.js gives route handlers no
// socket and keeps a client's own X-Forwarded-For as it came, so the server stamps every request with its
// socket's address (in a header that carries a per-process secret, so a client cannot forge it), and
// X-Forwarded-For is believed only from the proxies the admin trusts (OPSBENCH_TRUSTED_PROXIES).
import { randomBytes } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import { BlockList, isIP } from "node:net";

const PEER_HEADER = "x-opsbench-peer";

declare global {
  var opsbenchPeerNonce: string | undefined;
}

/** `::ffff:1.2.3.4` (an IPv4 client on a dual-stack socket) is 1.2.3.4. */
const plain = (address: string) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1");

/**
 * Makes every HTTP server of this process stamp each request with its socket's address before Next sees it
 * (instrumentation.ts calls this once at start). A request that arrives unstamped counts as address "unknown".
 */
export async function stampPeerAddresses(): Promise<void> {
  if (globalThis.opsbenchPeerNonce) return;
  const nonce = randomBytes(16).toString("hex");
  globalThis.opsbenchPeerNonce = nonce;
  const http = await import("node:http");
  const proto = http.Server.prototype as Server & { emit: (event: string, ...args: unknown[]) => boolean };
  const emit = proto.emit;
  proto.emit = function (this: Server, event: string, ...args: unknown[]) {
    if (event === "request") {
      const req = args[0] as IncomingMessage;
      // The third field: whether the request came with a proxy's forwarding header (before Next adds its own).
      const forwarded = req.headers["x-forwarded-for"] || req.headers.forwarded ? "forwarded" : "direct";
      req.headers[PEER_HEADER] = `${nonce} ${plain(req.socket?.remoteAddress ?? "unknown")} ${forwarded}`;
    }
    return emit.call(this, event, ...args);
  };
}

/** The socket's address the server stamped on the request; null when it carries no valid stamp. */
export function peerAddress(headers: Headers): string | null {
  const nonce = globalThis.opsbenchPeerNonce;
  const [given, address] = (headers.get(PEER_HEADER) ?? "").split(" ");
  return nonce && given === nonce && address ? address : null;
}

/**
 * Whether the request reached this server with X-Forwarded-For or Forwarded (a proxy's), as the server saw it before
 * Next added its own; true when it carries no valid stamp (nothing is known of it).
 */
export function cameThroughProxy(headers: Headers): boolean {
  const nonce = globalThis.opsbenchPeerNonce;
  const [given, , forwarded] = (headers.get(PEER_HEADER) ?? "").split(" ");
  return !(nonce && given === nonce && forwarded === "direct");
}

/** Parses OPSBENCH_TRUSTED_PROXIES (comma-separated IP addresses and CIDRs); throws naming a bad entry. */
export function parseTrustedProxies(text: string | undefined): BlockList | null {
  const entries = (text ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = "", bits, more] = entry.split("/");
    const family = isIP(address);
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
    if (family === 0 || more !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32))
      throw new Error(`"${entry}" is not an IP address or CIDR (e.g. 10.0.0.0/8, 172.18.0.1, fd00::/8)`);
    list.addSubnet(address, prefix, family === 6 ? "ipv6" : "ipv4");
  }
  return list;
}

const trusted = (list: BlockList, address: string) => {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 6 ? "ipv6" : "ipv4");
};

/**
 * The client's address: the socket's, unless the socket is a trusted proxy; then X-Forwarded-For is read from the
 * right, skipping trusted proxies, and the first other address is the client (a client's own entries sit further
 * left and are never reached while the proxies append what they saw).
 */
export function clientAddress(headers: Headers, trustedProxies: BlockList | null): string {
  const peer = peerAddress(headers) ?? "unknown";
  if (!trustedProxies || !trusted(trustedProxies, peer)) return peer;
  const hops = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((h) => plain(h.trim()))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] ?? "";
    if (isIP(hop) === 0) return peer;
    if (!trusted(trustedProxies, hop)) return hop;
  }
  return hops[0] ?? peer;
}
