// The host policy (docs/security.md "Egress policy") as far as it can be judged when a target is SAVED, without
// resolving a name or asking a server: the typed address (an endpoint's url, an endpointUrl, a kubernetes ingress
// endpoint or OpenFaaS gateway) is refused when the run would refuse it whatever happens before it: loopback not on
// the admin's allowlist, the metadata and link-local ranges, a literal private or shared address only the allowlist
// or an opened range admits, or a port of opsbench's own services. A host name not on the allowlist is not refused
// here: a proof of ownership (the targets list shows how) may still admit it at run time.
import {
  ALWAYS_BLOCKED_RANGES,
  addressInCidr,
  isIpAddress,
  isLoopbackAddress,
  LOAD_PRIVATE_RANGES_SETTING,
  type LoadHostAllowlist,
  loadHostVerdict,
  policyHost,
  privateRangeOf,
  type ProtectedPort,
  protectedPortVerdict,
} from "./load-host-policy";

/** What the save-time check knows of the policy: the admin's allowlist and opened ranges, and the protected ports. */
export interface SaveTimeHostPolicy {
  allowlist: LoadHostAllowlist;
  privateRanges: readonly string[];
  protectedPorts: readonly ProtectedPort[];
}

/** The address a spec names itself, and the spec path it is at (the field a refusal is shown next to). */
export function typedEndpointField(spec: unknown): { path: string; url: string } | null {
  if (!spec || typeof spec !== "object") return null;
  const s = spec as Record<string, unknown>;
  const openfaas = s.openfaas as Record<string, unknown> | undefined;
  if (s.flavour === "openfaas-function" && typeof openfaas?.gateway === "string" && openfaas.gateway)
    return { path: "openfaas.gateway", url: openfaas.gateway };
  for (const key of ["url", "endpointUrl", "endpoint"])
    if (typeof s[key] === "string" && s[key]) return { path: key, url: s[key] as string };
  return null;
}

/** Why load to `url` will be refused whatever a run finds, naming the rule; null when a run may still admit it. */
export function refusalAtSave(url: string, policy: SaveTimeHostPolicy): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null; // the spec's own schema names a URL that is not one
  }
  const host = policyHost(parsed.hostname);
  const verdict = loadHostVerdict(url, policy.allowlist);
  const port = protectedPortVerdict(url, policy.protectedPorts);
  if (port) return `host policy, opsbench's own ports: ${port.message}`;
  if (isLoopbackAddress(host)) return verdict.allowed ? null : `host policy, loopback: ${verdict.message}`;
  if (!isIpAddress(host)) return null;
  const blocked = neverLoadedRefusal(host, host);
  if (blocked) return `host policy, never-loaded ranges: ${blocked}`;
  const range = privateRangeOf(host);
  if (range && !verdict.allowed && !policy.privateRanges.some((r) => addressInCidr(host, r)))
    return (
      `host policy, private ranges: load to ${host} refused: the address is in ${range}, a private or shared range, which no proof of ` +
      `ownership admits: only the admin, with a range of ${LOAD_PRIVATE_RANGES_SETTING} or the host on OPSBENCH_LOAD_ALLOWED_HOSTS (docs/security.md "Egress policy")`
    );
  return null;
}

/** The refusal of an address in the metadata and link-local ranges, which load never reaches whatever admits it; null outside them. */
export function neverLoadedRefusal(named: string, address: string): string | null {
  const blocked = ALWAYS_BLOCKED_RANGES.find((r) => addressInCidr(address, r));
  return blocked
    ? `load to ${named} refused: the address is in ${blocked} (the metadata services, link-local), which load never reaches`
    : null;
}
