// Where load may go when opsbench did not start the endpoint itself (an `endpoint` target, a cloud
// kind's `endpointUrl`, the platform's own address: ALB DNS name, function URL, Cloud Run uri):
// only to a host the admin put on the worker's allowlist (OPSBENCH_LOAD_ALLOWED_HOSTS: host names,
// `*.domain` for its subdomains, IPv4/IPv6 CIDRs, or `host:port` / `host:first-last` for one address and
// its ports). A loopback address (127.0.0.0/8, ::1, localhost) is where opsbench's own services listen, so
// it passes only through a `host:port` entry naming that address and port, never through a bare address or CIDR.
// Names are matched as written, never resolved: the allowlist says which names the admin vouches for.
// Apart from that, whatever the allowlist says, the ports of opsbench's own services (Postgres, Redis, the
// web app and its ingest endpoint) are never a load target: `protectedPortVerdict`, for every target kind.
// Pure: the worker parses the setting once and asks before one request is sent (and the runner again before k6 starts).

export const LOAD_ALLOWED_HOSTS_SETTING = "OPSBENCH_LOAD_ALLOWED_HOSTS";

interface Cidr {
  bits: bigint;
  prefix: number;
  width: 32 | 128;
}

/** One address and a range of its ports (`127.0.0.1:8080`, `[::1]:8000-8099`, `bench.example.com:443`). */
interface HostPorts {
  host: string;
  first: number;
  last: number;
}

export interface LoadHostAllowlist {
  /** Exact host names (lower case) and `*.domain` suffixes (stored as ".domain"). */
  names: string[];
  cidrs: Cidr[];
  /** `host:port` entries: that address on those ports only (the only way a loopback address passes). */
  ports?: HostPorts[];
  /** The entries as given, for messages. */
  entries: string[];
}

export const EMPTY_LOAD_HOST_ALLOWLIST: LoadHostAllowlist = { names: [], cidrs: [], ports: [], entries: [] };

function ipv4Bits(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.reduce((acc, p) => (acc << 8n) | BigInt(Number(p)), 0n);
}

function ipv6Bits(text: string): bigint | null {
  let s = text;
  // An embedded IPv4 tail (::ffff:10.0.0.1) becomes two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4?.[1]) {
    const b = ipv4Bits(v4[1]);
    if (b === null) return null;
    s = `${s.slice(0, -v4[1].length)}${(b >> 16n).toString(16)}:${(b & 0xffffn).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

/** An IP literal as [bits, width], or null for a host name. */
function ipOf(host: string): { bits: bigint; width: 32 | 128 } | null {
  const v4 = ipv4Bits(host);
  if (v4 !== null) return { bits: v4, width: 32 };
  const v6 = host.includes(":") ? ipv6Bits(host) : null;
  return v6 === null ? null : { bits: v6, width: 128 };
}

const inCidr = (ip: { bits: bigint; width: number }, c: Cidr) =>
  ip.width === c.width && ip.bits >> BigInt(c.width - c.prefix) === c.bits >> BigInt(c.width - c.prefix);

/** A URL's host as the policy compares it: lower case, no IPv6 brackets, no trailing dot. */
export function policyHost(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
}

const LOOPBACK: Cidr[] = [
  { bits: 127n << 24n, prefix: 8, width: 32 },
  { bits: 1n, prefix: 128, width: 128 },
];

/** localhost, 127.0.0.0/8, ::1 (and ::ffff:127.x.y.z). */
export function isLoopbackAddress(hostname: string): boolean {
  const host = policyHost(hostname);
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const ip = ipOf(host);
  if (!ip) return false;
  if (ip.width === 128 && ip.bits >> 32n === 0xffffn) return inCidr({ bits: ip.bits & 0xffffffffn, width: 32 }, LOOPBACK[0]!);
  return LOOPBACK.some((c) => inCidr(ip, c));
}

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** `host:port`, `host:first-last`, `[v6]:port`: the host and the port range, or null when the entry has no port. */
function hostPortsOf(entry: string): HostPorts | null {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]/]+):(\d{1,5})(?:-(\d{1,5}))?$/.exec(entry);
  if (!m) return null;
  const host = policyHost(m[1]!);
  const first = Number(m[2]);
  const last = m[3] === undefined ? first : Number(m[3]);
  if (!(first >= 1 && last <= 65535 && first <= last))
    throw new Error(`${LOAD_ALLOWED_HOSTS_SETTING}: "${entry}" has a bad port or port range (1-65535, first-last)`);
  if (!ipOf(host) && !HOST_NAME.test(host))
    throw new Error(`${LOAD_ALLOWED_HOSTS_SETTING}: "${entry}" is neither a host name nor an IP address before its port`);
  return { host, first, last };
}

/** Parses the setting (comma-separated); throws naming the entry that is neither a host name nor a CIDR. */
export function parseLoadHostAllowlist(text: string): LoadHostAllowlist {
  const list: LoadHostAllowlist = { names: [], cidrs: [], ports: [], entries: [] };
  for (const raw of text.split(",")) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    list.entries.push(entry);
    const hostPorts = hostPortsOf(entry);
    if (hostPorts) {
      list.ports!.push(hostPorts);
      continue;
    }
    const [addr = "", prefixText] = entry.split("/");
    if (prefixText === undefined && isLoopbackAddress(addr))
      throw new Error(
        `${LOAD_ALLOWED_HOSTS_SETTING}: "${entry}" is a loopback address, where opsbench's own services listen: name the address and its port (e.g. 127.0.0.1:8080, or a range 127.0.0.1:8000-8099)`,
      );
    const ip = ipOf(policyHost(addr));
    if (ip) {
      const prefix = prefixText === undefined ? ip.width : Number(prefixText);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > ip.width || (prefixText !== undefined && !/^\d+$/.test(prefixText)))
        throw new Error(`${LOAD_ALLOWED_HOSTS_SETTING}: "${entry}" has a bad prefix length (0-${ip.width})`);
      list.cidrs.push({ ...ip, prefix });
      continue;
    }
    const name = /^\*\.(.+)$/.exec(entry)?.[1] ?? entry;
    if (prefixText !== undefined || !HOST_NAME.test(name))
      throw new Error(`${LOAD_ALLOWED_HOSTS_SETTING}: "${entry}" is neither a host name (or *.domain) nor an IP address / CIDR`);
    list.names.push(entry.startsWith("*.") ? `.${name}` : name);
  }
  return list;
}

export type LoadHostVerdict = { allowed: true; host: string; reason: "allowlist" } | { allowed: false; host: string; message: string };

/** A URL's port, or the scheme's default (http 80, https 443, postgres 5432, redis 6379); null when unknown. */
export function urlPort(url: URL): number | null {
  if (url.port) return Number(url.port);
  return DEFAULT_PORTS[url.protocol] ?? null;
}

const DEFAULT_PORTS: Record<string, number> = {
  "http:": 80,
  "https:": 443,
  "ws:": 80,
  "wss:": 443,
  "postgres:": 5432,
  "postgresql:": 5432,
  "redis:": 6379,
  "rediss:": 6379,
};

/** Whether load may go to `url`, an endpoint opsbench did not start; the refusal names the host and the setting. */
export function loadHostVerdict(url: string, allowlist: LoadHostAllowlist): LoadHostVerdict {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { allowed: false, host: url, message: `the endpoint "${url}" is not a URL` };
  }
  const host = policyHost(parsed.hostname);
  const port = urlPort(parsed);
  const loopback = isLoopbackAddress(host);
  const ip = ipOf(host);
  const listed =
    (port !== null && (allowlist.ports ?? []).some((e) => e.host === host && port >= e.first && port <= e.last)) ||
    (!loopback &&
      (ip ? allowlist.cidrs.some((c) => inCidr(ip, c)) : allowlist.names.some((n) => (n.startsWith(".") ? host.endsWith(n) : host === n))));
  if (listed) return { allowed: true, host, reason: "allowlist" };
  const now = `${LOAD_ALLOWED_HOSTS_SETTING} in the worker's environment${allowlist.entries.length ? `, now: ${allowlist.entries.join(", ")}` : ", now empty"}; docs/security.md`;
  const where = port === null ? host : `${ip?.width === 128 ? `[${host}]` : host}:${port}`;
  return {
    allowed: false,
    host,
    message: loopback
      ? `load to ${where} refused: opsbench did not start this endpoint, and ${where} is a loopback address (where opsbench's own services listen) that is not on the admin's allowlist; allow it as "${where}" (${now})`
      : `load to ${host} refused: opsbench did not start this endpoint and ${host} is not on the admin's allowlist (${now})`,
  };
}

/** A port of one of opsbench's own services (Postgres, Redis, the web app and its ingest endpoint): never a load target. */
export interface ProtectedPort {
  host: string;
  port: number;
  /** Who listens there, for the refusal: "Postgres", "Redis", "the web app". */
  service: string;
}

/** The host and port of a service's URL (DATABASE_URL, REDIS_URL, the web app's address), or null when it has none. */
export function protectedPortOf(url: string, service: string): ProtectedPort | null {
  try {
    const u = new URL(url);
    const port = urlPort(u);
    const host = policyHost(u.hostname);
    return port === null || !host ? null : { host, port, service };
  } catch {
    return null;
  }
}

/** Hosts that mean "every address of this machine" when a service listens on them. */
const ANY_ADDRESS = new Set(["0.0.0.0", "::", "*"]);

/**
 * Refuses load to a port of opsbench's own services, for every target kind and whatever the allowlist says. A
 * service on a loopback address (or on all addresses) is reached through any loopback address, since k6's load
 * network sends the target's loopback port to 127.0.0.1 (providers' load-network.ts); by name otherwise.
 * Null when `url` is none of them.
 */
export function protectedPortVerdict(url: string, protectedPorts: readonly ProtectedPort[]): { message: string } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const host = policyHost(parsed.hostname);
  const port = urlPort(parsed);
  if (port === null) return null;
  const loopback = isLoopbackAddress(host);
  const hit = protectedPorts.find(
    (p) =>
      p.port === port &&
      (p.host === host || ((loopback || ANY_ADDRESS.has(host)) && (isLoopbackAddress(p.host) || ANY_ADDRESS.has(p.host)))),
  );
  if (!hit) return null;
  return {
    message: `load to ${parsed.host} refused: the target's port ${port} is ${hit.service}'s, one of opsbench's own services; the load sandbox never opens their ports, whatever the target or the allowlist says (docs/security.md)`,
  };
}

/** OPSBENCH_LOAD_BLOCKED_PORTS: more `host:port` pairs of services on the machine that load must never reach. */
export function parseBlockedPorts(text: string): ProtectedPort[] {
  const out: ProtectedPort[] = [];
  for (const raw of text.split(",")) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    const m = /^(\[[0-9a-f:.]+\]|[^:[\]/]+):(\d{1,5})$/.exec(entry);
    const port = Number(m?.[2]);
    if (!m || !(port >= 1 && port <= 65535))
      throw new Error(`OPSBENCH_LOAD_BLOCKED_PORTS: "${entry}" is not host:port (e.g. 127.0.0.1:9090)`);
    out.push({ host: policyHost(m[1]!), port, service: `a service the admin protects (${entry})` });
  }
  return out;
}

/**
 * The ports of opsbench's own services the worker knows: its Postgres and Redis, the web app (which also takes
 * results at its ingest endpoint) on this machine's loopback, and the admin's extra ones.
 */
export function opsbenchServicePorts(s: {
  databaseUrl: string;
  redisUrl: string;
  webPort?: number | undefined;
  extra?: ProtectedPort[];
}): ProtectedPort[] {
  return [
    protectedPortOf(s.databaseUrl, "Postgres"),
    protectedPortOf(s.redisUrl, "Redis"),
    s.webPort ? { host: "127.0.0.1", port: s.webPort, service: "the web app" } : null,
    ...(s.extra ?? []),
  ].filter((p): p is ProtectedPort => p !== null);
}

/** Whether IP address `address` (v4 or v6, no brackets) is in `cidr` (an address alone: /32 or /128); false for names. */
export function addressInCidr(address: string, cidr: string): boolean {
  const [base = "", prefixText] = cidr.split("/");
  const ip = ipOf(policyHost(address));
  const net = ipOf(policyHost(base));
  if (!ip || !net) return false;
  const prefix = prefixText === undefined ? net.width : Number(prefixText);
  return Number.isInteger(prefix) && prefix >= 0 && prefix <= net.width && inCidr(ip, { ...net, prefix });
}

/** Whether `host` is an IP address (v4 or v6, brackets allowed) rather than a name. */
export const isIpAddress = (host: string): boolean => ipOf(policyHost(host)) !== null;

export const LOAD_PRIVATE_RANGES_SETTING = "OPSBENCH_LOAD_PRIVATE_RANGES";

/**
 * Private and shared ranges (RFC 1918, carrier-grade NAT, benchmarking, IPv6 unique local): an internal network's hosts,
 * which are nobody's to prove from outside and which no platform's answer vouches for. Only the admin admits an
 * address there: its host on the allowlist, or a range of OPSBENCH_LOAD_PRIVATE_RANGES (parsePrivateRanges).
 */
export const PRIVATE_RANGES = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "198.18.0.0/15", "fc00::/7"];

/** The private or shared range `address` is in, or null. */
export const privateRangeOf = (address: string): string | null => PRIVATE_RANGES.find((r) => addressInCidr(address, r)) ?? null;

/** OPSBENCH_LOAD_PRIVATE_RANGES: comma-separated CIDRs (or addresses) where a proof or a deploy's answer may admit a private address. */
export function parsePrivateRanges(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(",")) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    const [base = "", prefixText] = entry.split("/");
    const ip = ipOf(policyHost(base));
    const prefix = prefixText === undefined ? ip?.width : Number(prefixText);
    if (
      !ip ||
      prefix === undefined ||
      !Number.isInteger(prefix) ||
      prefix < 0 ||
      prefix > ip.width ||
      (prefixText !== undefined && !/^\d+$/.test(prefixText))
    )
      throw new Error(`${LOAD_PRIVATE_RANGES_SETTING}: "${entry}" is not an IP address or CIDR (e.g. 10.20.0.0/16)`);
    out.push(prefixText === undefined ? `${base}/${prefix}` : entry);
  }
  return out;
}

/** Never reachable from k6, whatever admitted the host: link-local (the cloud metadata services at 169.254.169.254 and fd00:ec2::254), Alibaba's, "this network". */
export const ALWAYS_BLOCKED_RANGES = ["169.254.0.0/16", "fe80::/10", "fd00:ec2::254/128", "100.100.100.200/32", "0.0.0.0/8"];
