// Where load may go when opsbench did not start the endpoint itself (an `endpoint` target, a cloud
// kind's `endpointUrl`, the platform's own address: ALB DNS name, function URL, Cloud Run uri):
// loopback always (local stand-ins), any other host only when the admin put it on the worker's
// allowlist (OPSBENCH_LOAD_ALLOWED_HOSTS: host names, `*.domain` for its subdomains, IPv4/IPv6 CIDRs).
// Names are matched as written, never resolved: the allowlist says which names the admin vouches for.
// Pure: the worker parses the setting once and asks before one request is sent.

export const LOAD_ALLOWED_HOSTS_SETTING = "OPSBENCH_LOAD_ALLOWED_HOSTS";

interface Cidr {
  bits: bigint;
  prefix: number;
  width: 32 | 128;
}

export interface LoadHostAllowlist {
  /** Exact host names (lower case) and `*.domain` suffixes (stored as ".domain"). */
  names: string[];
  cidrs: Cidr[];
  /** The entries as given, for messages. */
  entries: string[];
}

export const EMPTY_LOAD_HOST_ALLOWLIST: LoadHostAllowlist = { names: [], cidrs: [], entries: [] };

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

/** Parses the setting (comma-separated); throws naming the entry that is neither a host name nor a CIDR. */
export function parseLoadHostAllowlist(text: string): LoadHostAllowlist {
  const list: LoadHostAllowlist = { names: [], cidrs: [], entries: [] };
  for (const raw of text.split(",")) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    list.entries.push(entry);
    const [addr = "", prefixText] = entry.split("/");
    const ip = ipOf(policyHost(addr));
    if (ip) {
      const prefix = prefixText === undefined ? ip.width : Number(prefixText);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > ip.width || (prefixText !== undefined && !/^\d+$/.test(prefixText)))
        throw new Error(`${LOAD_ALLOWED_HOSTS_SETTING}: "${entry}" has a bad prefix length (0-${ip.width})`);
      list.cidrs.push({ ...ip, prefix });
      continue;
    }
    const name = /^\*\.(.+)$/.exec(entry)?.[1] ?? entry;
    if (
      prefixText !== undefined ||
      !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(name)
    )
      throw new Error(`${LOAD_ALLOWED_HOSTS_SETTING}: "${entry}" is neither a host name (or *.domain) nor an IP address / CIDR`);
    list.names.push(entry.startsWith("*.") ? `.${name}` : name);
  }
  return list;
}

export type LoadHostVerdict =
  | { allowed: true; host: string; reason: "loopback" | "allowlist" }
  | { allowed: false; host: string; message: string };

/** Whether load may go to `url`, an endpoint opsbench did not start; the refusal names the host and the setting. */
export function loadHostVerdict(url: string, allowlist: LoadHostAllowlist): LoadHostVerdict {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return { allowed: false, host: url, message: `the endpoint "${url}" is not a URL` };
  }
  const host = policyHost(hostname);
  if (isLoopbackAddress(host)) return { allowed: true, host, reason: "loopback" };
  const ip = ipOf(host);
  const listed = ip
    ? allowlist.cidrs.some((c) => inCidr(ip, c))
    : allowlist.names.some((n) => (n.startsWith(".") ? host.endsWith(n) : host === n));
  if (listed) return { allowed: true, host, reason: "allowlist" };
  return {
    allowed: false,
    host,
    message:
      `load to ${host} refused: opsbench did not start this endpoint and ${host} is not on the admin's allowlist ` +
      `(${LOAD_ALLOWED_HOSTS_SETTING} in the worker's environment${allowlist.entries.length ? `, now: ${allowlist.entries.join(", ")}` : ", now empty"}; docs/security.md)`,
  };
}
