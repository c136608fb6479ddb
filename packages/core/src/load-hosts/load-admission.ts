// How a run's load host was admitted (issue 21, "which hosts may be loaded"; docs/security.md "Egress policy"):
// - created-by-run: the address a provider's deploy returned for THIS run (an ALB, a function URL, a Cloud Run uri, a
//   Kubernetes load balancer it made); never the machine's loopback, the metadata range or its own addresses;
// - allowlist: the admin's OPSBENCH_LOAD_ALLOWED_HOSTS (load-host-policy.ts);
// - well-known / dns-txt: a proof of ownership of the address load goes to, the workspace's token for the host served
//   at `<scheme>://<host>:<port>/.well-known/opsbench-verify/<token>` by the pinned address itself (no redirects
//   followed), or a DNS TXT record `opsbench-verify=<token>` on the pinned address's reverse name (in-addr.arpa, which
//   the address block's owner answers for). A TXT record on the name alone proves nothing about the address: whoever
//   holds a zone can point a name anywhere.
// The worker decides before k6 starts and records the outcome on the run (runs.load_admission).
import { z } from "zod";
import { typedEndpointField } from "./save-time-refusal";

export const LOAD_ADMISSION_WAYS = ["created-by-run", "allowlist", "well-known", "dns-txt"] as const;
export type LoadAdmissionWay = (typeof LOAD_ADMISSION_WAYS)[number];

export const loadAdmission = z.object({
  how: z.enum(LOAD_ADMISSION_WAYS),
  /** The target's host as its URL names it. */
  host: z.string(),
  port: z.number().int().nullable(),
  /** The one address load goes to (pinned for the run), or null when the runner resolves it (loopback). */
  address: z.string().nullable(),
  /** Every address the name had when it was resolved (load goes to `address` alone). */
  addresses: z.array(z.string()).default([]),
  /** What was found, in words, for the run page ("well-known token at http://…", "TXT record on …"). */
  detail: z.string(),
  checkedAt: z.string(),
});
export type LoadAdmission = z.infer<typeof loadAdmission>;

/** The path a host serves its token at (the body of a 200 answer is the token itself). */
export const wellKnownVerifyPath = (token: string) => `/.well-known/opsbench-verify/${token}`;

/** The TXT record on the name that proves it: `opsbench-verify=<token>`. */
export const dnsVerifyRecord = (token: string) => `opsbench-verify=${token}`;

/** The name the owner of an IPv4 address's block answers for (in-addr.arpa), where a dns-txt proof of that address lives. */
export const reverseDnsName = (address: string) => `${address.split(".").reverse().join(".")}.in-addr.arpa`;

/** One line for the run page and its event: how the host was admitted and where load goes. */
export function describeLoadAdmission(a: Pick<LoadAdmission, "how" | "host" | "address" | "addresses" | "detail">): string {
  const where = a.address && a.address !== a.host ? `${a.host} (${a.address})` : a.host;
  const several =
    a.addresses.length > 1
      ? `; the name has ${a.addresses.length} addresses (${a.addresses.join(", ")}): load goes to the first, ${a.address}, only`
      : "";
  const how: Record<LoadAdmissionWay, string> = {
    "created-by-run": "opsbench created it for this run",
    allowlist: "it is on the admin's allowlist",
    "well-known": "its owner serves the workspace's token at /.well-known/opsbench-verify/",
    "dns-txt": "the address's owner published the workspace's token in a DNS TXT record on its reverse name",
  };
  return `load host ${where} admitted: ${how[a.how]} (${a.detail})${several}`;
}

/** How to admit a host, for a refusal and the target page. */
export function howToAdmit(url: URL, token: string | null, targetRef: string, address?: string): string {
  const origin = `${url.protocol}//${url.host}`;
  const txtAt = address
    ? `${reverseDnsName(address)} (the reverse name of ${address}, the address load goes to)`
    : "the address's reverse name";
  const proof = token
    ? `prove the workspace owns it: serve ${origin}${wellKnownVerifyPath(token)} answering 200 with the token ${token} as its body, ` +
      `or publish a DNS TXT record "${dnsVerifyRecord(token)}" on ${txtAt}`
    : "prove the workspace owns it (a token at /.well-known/opsbench-verify/ or a DNS TXT record on the address's reverse name)";
  return `${proof} (the target's page and GET /api/v1/targets/${targetRef}/verification show the token); or ask the admin to add it to OPSBENCH_LOAD_ALLOWED_HOSTS (docs/security.md "Egress policy")`;
}

/**
 * The address a target's spec names itself (an `endpoint`'s url, a cloud kind's endpointUrl, a kubernetes ingress
 * endpoint or OpenFaaS gateway): the one a proof of ownership is for. Null when only a deploy tells the address, or
 * opsbench starts it.
 */
export function typedEndpointOf(spec: unknown): string | null {
  return typedEndpointField(spec)?.url ?? null;
}
