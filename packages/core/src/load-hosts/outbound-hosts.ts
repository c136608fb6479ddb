// Requests the server makes for a user that are not load (a webhook delivery, an e-mail through the workspace's SMTP
// server): the same egress rule as a load target (load-host-policy.ts, save-time-refusal.ts), read for a request that
// needs no proof of ownership. A public address is fine: the user only learns whether their own receiver answered.
// What the rule never lets a user reach stays shut: opsbench's own services (Postgres, Redis, the web app: whatever
// the allowlist says), loopback unless the admin lists that address and port, the metadata and link-local ranges
// (never), this machine's own addresses and the private or shared ranges unless the admin lists the host on
// OPSBENCH_LOAD_ALLOWED_HOSTS or opens its range in OPSBENCH_LOAD_PRIVATE_RANGES.
// Asked twice: when the endpoint is saved, on the address as typed (outboundRefusalAtSave), and before each send on
// the address the name resolved to, which is the one connected to (outboundAddressRefusal: DNS rebinding).
import {
  ALWAYS_BLOCKED_RANGES,
  addressInCidr,
  isIpAddress,
  isLoopbackAddress,
  LOAD_ALLOWED_HOSTS_SETTING,
  LOAD_PRIVATE_RANGES_SETTING,
  loadHostVerdict,
  policyHost,
  privateRangeOf,
  protectedPortVerdict,
  urlPort,
} from "./load-host-policy";
import type { SaveTimeHostPolicy } from "./save-time-refusal";

/** What the request is, for the refusal: "webhook", "SMTP server". */
/** What the request is for, as a refusal names it ("results export": a Prometheus or OTLP exporter, docs/exports.md). */
export type OutboundKind = "webhook" | "SMTP server" | "results export";

const adminWay = (kind: OutboundKind) =>
  `${kind === "webhook" ? "webhooks go" : kind === "SMTP server" ? "e-mail goes" : "results exports go"} only to public hosts unless the admin lists the host (and, for a loopback ` +
  `address, its port) in ${LOAD_ALLOWED_HOSTS_SETTING} or opens its range in ${LOAD_PRIVATE_RANGES_SETTING} (docs/notifications.md "Egress")`;

/**
 * The IPv4 address an IPv4-mapped IPv6 address stands for (::ffff:10.0.0.5, as the URL parser writes it ::ffff:a00:5),
 * or null: a socket to it reaches that IPv4 address, so it is judged as that address. (Load goes over IPv4 only and
 * never meets one; a webhook may go over IPv6.)
 */
export function ipv4MappedAddress(address: string): string | null {
  const a = policyHost(address);
  const dotted = /^(?:0{0,4}:){5}ffff:(\d+\.\d+\.\d+\.\d+)$|^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) return dotted[1] ?? dotted[2] ?? null;
  const hex = /^(?:(?:0{0,4}:){5}|::)ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (!hex) return null;
  const [hi, lo] = [Number.parseInt(hex[1]!, 16), Number.parseInt(hex[2]!, 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
}

/** The one-line reason of a refusal, whichever check made it; `address` is the one connected to (the host itself when literal). */
function refusalFor(
  kind: OutboundKind,
  url: URL,
  connectedTo: string,
  policy: SaveTimeHostPolicy & { ownAddresses?: readonly string[] },
): string | null {
  // An IPv4-mapped address is judged as the IPv4 address it reaches.
  const address = ipv4MappedAddress(connectedTo) ?? policyHost(connectedTo);
  const host = policyHost(url.hostname);
  const port = urlPort(url);
  const named = address === host ? host : `${host} (${address})`;
  const target = `${kind} to ${port === null ? named : `${named} port ${port}`} refused`;
  // opsbench's own services, on the name as written and on the address connected to: never, whatever is allowed.
  const own = [url.href, `http://${address.includes(":") ? `[${address}]` : address}:${port ?? 0}`]
    .map((u) => protectedPortVerdict(u, policy.protectedPorts))
    .find((v) => v !== null);
  if (own) return `${target}: it is the port of one of opsbench's own services, never reached whatever the allowlist says`;
  // "::" (like 0.0.0.0) is this machine's every address.
  if (isIpAddress(address) && addressInCidr(address, "::/128"))
    return `${target}: ${address} is the unspecified address (this machine's every address), which opsbench never reaches`;
  const blocked = ALWAYS_BLOCKED_RANGES.find((r) => addressInCidr(address, r));
  if (blocked) return `${target}: ${address} is in ${blocked} (the metadata services, link-local), which opsbench never reaches`;
  const verdict = loadHostVerdict(url.href, policy.allowlist);
  if (isLoopbackAddress(address)) {
    // Only an allowlist entry naming the loopback address and port as written, never a name that resolves there.
    if (verdict.allowed && isLoopbackAddress(host)) return null;
    return `${target}: ${address} is a loopback address, where opsbench's own services listen; ${adminWay(kind)}`;
  }
  if (verdict.allowed) return null;
  if ((policy.ownAddresses ?? []).includes(address)) return `${target}: ${address} is an address of this machine; ${adminWay(kind)}`;
  const range = privateRangeOf(address);
  if (range && !policy.privateRanges.some((r) => addressInCidr(address, r)))
    return `${target}: ${address} is a private address (${range}); ${adminWay(kind)}`;
  return null;
}

/**
 * Why a webhook URL or an SMTP host is refused when it is saved, or null. A literal address is judged whole; a name
 * is judged as far as it can be without resolving it (localhost and *.localhost are loopback; the rest is judged on
 * each send, on the address it resolves to).
 */
export function outboundRefusalAtSave(kind: OutboundKind, url: string, policy: SaveTimeHostPolicy): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a URL`;
  }
  const host = policyHost(parsed.hostname);
  if (!host) return `"${url}" names no host`;
  if (isIpAddress(host)) return refusalFor(kind, parsed, host, policy);
  if (isLoopbackAddress(host)) return refusalFor(kind, parsed, "127.0.0.1", policy);
  // A name: only opsbench's own ports by name (DATABASE_URL's host, say) are known here.
  return protectedPortVerdict(parsed.href, policy.protectedPorts)
    ? `${kind} to ${parsed.host} refused: it is the port of one of opsbench's own services, never reached whatever the allowlist says`
    : null;
}

/**
 * Why a request to `url` may not go to `address`, the address its host resolved to (the one the request is then
 * pinned to), or null. `ownAddresses`: this machine's interface addresses.
 */
export function outboundAddressRefusal(
  kind: OutboundKind,
  url: string,
  address: string,
  policy: SaveTimeHostPolicy & { ownAddresses?: readonly string[] },
): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a URL`;
  }
  return refusalFor(kind, parsed, policyHost(address), policy);
}

/** An SMTP server as the egress rule reads it: a URL of its host and port (smtp://host:port). */
export const smtpServerUrl = (host: string, port: number) =>
  `smtp://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
