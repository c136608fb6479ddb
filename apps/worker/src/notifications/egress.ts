// The egress rule at send time (core load-hosts/outbound-hosts.ts): a webhook's or an SMTP server's host is resolved
// here, once per attempt, and the first address the rule admits is the one the request is pinned to, so a name that
// answered a public address to the check cannot send the request somewhere else a moment later (DNS rebinding).
import { networkInterfaces } from "node:os";
import {
  isIpAddress,
  type LoadHostAllowlist,
  type OutboundKind,
  outboundAddressRefusal,
  outboundRefusalAtSave,
  policyHost,
  type ProtectedPort,
} from "@opsbench/core";
import { hostResolver } from "../pipeline/host-proof";

export interface EgressPolicy {
  allowlist: LoadHostAllowlist;
  privateRanges: readonly string[];
  protectedPorts: readonly ProtectedPort[];
  /** OPSBENCH_DNS_SERVERS (empty: the system's resolver). */
  dnsServers: string[];
}

/** Refused by the egress rule: not retried (the rule, not the receiver, said no). */
export class EgressRefused extends Error {}

const ownAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .map((i) => i?.address)
    .filter((a): a is string => !!a);

/** The address to connect to for `url` (its host resolved and judged), or EgressRefused naming why. */
export async function admittedAddress(kind: OutboundKind, url: string, policy: EgressPolicy): Promise<{ address: string; family: 4 | 6 }> {
  const rule = { ...policy, ownAddresses: ownAddresses() };
  const typed = outboundRefusalAtSave(kind, url, rule);
  if (typed) throw new EgressRefused(typed);
  const host = policyHost(new URL(url).hostname);
  let candidates: string[];
  if (isIpAddress(host)) candidates = [host];
  else {
    const found = await hostResolver(policy.dnsServers)
      .addresses(host)
      .catch((err: Error) => {
        throw new Error(`${host} could not be resolved (${err.message})`);
      });
    candidates = [...found.v4, ...found.v6];
    if (!candidates.length) throw new Error(`${host} has no address`);
  }
  // Every address the name has is judged: one refused address refuses the name (a receiver behind a name that also
  // points inside is not one to send to half the time).
  for (const address of candidates) {
    const refusal = outboundAddressRefusal(kind, url, address, rule);
    if (refusal) throw new EgressRefused(refusal);
  }
  const address = candidates[0]!;
  return { address, family: address.includes(":") ? 6 : 4 };
}
