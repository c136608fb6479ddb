// Which hosts may be loaded (docs/security.md "Egress policy"; core load-hosts/load-admission.ts), asked twice:
// - before anything is deployed (checkLoadHostBeforeDeploy): an address the spec already names (an `endpoint`'s url,
//   an endpointUrl, a kubernetes ingress or OpenFaaS gateway) is admitted now, by the admin's allowlist or the
//   workspace's proof of ownership, so no payload is deployed for a run that would be refused; one only the deploy
//   will tell and the platform names for the run (an ALB, a function URL, a Cloud Run uri) is opsbench's for this
//   run, refused now only when load could not leave this machine at all;
// - right after deploy (checkLoadHost), on the address the provider answered, before one request is sent: the
//   address is resolved once and pinned (the runner loads it alone), judged (never loopback, the metadata ranges or
//   this machine's own addresses unless the allowlist names them; a private or shared range only as the admin says),
//   and how it was admitted is recorded on the run. An address a cluster reports (a load balancer's, a Knative URL)
//   needs the allowlist or a proof, like a typed one.
// Each returns the host it admitted ({ host }; null when there is nothing to admit): the run hands the first to the
// second, and the second's pinned address to the load step.
// Proofs ask a server the user named: the run steps away from the host's load lock meanwhile (load-lock.ts HostHold).
// A refusal fails the run, which then tears down what the deploy made.
import { networkInterfaces } from "node:os";
import {
  addressInCidr,
  describeLoadAdmission,
  EMPTY_LOAD_HOST_ALLOWLIST,
  howToAdmit,
  LOAD_PRIVATE_RANGES_SETTING,
  isIpAddress,
  isLoopbackAddress,
  type LoadAdmission,
  type LoadAdmissionWay,
  loadHostVerdict,
  neverLoadedRefusal,
  type TargetDefinition,
  policyHost,
  privateRangeOf,
  protectedPortVerdict,
  urlPort,
} from "@opsbench/core";
import type { Provider } from "@opsbench/providers";
import { dnsTxtProof, hostResolver, wellKnownProof } from "./host-proof";
import type { Provisioned } from "./provision";
import type { RunContext } from "./run-context";
import { refuseProtectedPort } from "./protected-ports";
import { RunFailure } from "./run-failure";

const REMOTE =
  "the runner cannot route k6's load network off this machine (its sandbox does not work, or the host does not forward " +
  'IPv4) and it does not allow unsandboxed scripts (OPSBENCH_ALLOW_UNSANDBOXED_SCRIPTS; docs/security.md "Remote targets")';

/** A host admitted for the run: how, and the address the runner pins (null for loopback: the runner's own rules). */
export interface AdmittedHost {
  endpoint: string;
  admission: LoadAdmission;
}

const BEFORE_DEPLOY = "; refused before anything was deployed";

/** What a load host check found: the host admitted, or null (a target this machine serves, or none known yet). */
export interface LoadHostCheck {
  host: AdmittedHost | null;
}

export async function checkLoadHostBeforeDeploy(
  ctx: RunContext,
  provider: Provider,
  { spec }: TargetDefinition,
  targetRef: string,
): Promise<LoadHostCheck> {
  if (!provider.outsideEndpoint?.(spec)) return { host: null };
  const known = provider.knownEndpoint?.(spec) ?? null;
  if (known !== null) return { host: await admitHost(ctx, known, { createdByRun: false, targetRef, suffix: BEFORE_DEPLOY }) };
  // Only the deploy tells the address. The platform's own, made for this run, is admitted then as created-by-run,
  // provided load can leave this machine through the sandbox at all; one a cluster reports is judged after deploy.
  if (provider.platformNamesEndpoint && !ctx.deps.k6.remoteLoad)
    throw new RunFailure(
      `the ${provider.kind} target's address is known only after deploy (the platform's own) and load could not go there: ${REMOTE}${BEFORE_DEPLOY}`,
    );
  return { host: null };
}

/** `before`: what checkLoadHostBeforeDeploy admitted, kept when the deploy answered the same origin. */
export async function checkLoadHost(
  ctx: RunContext,
  provider: Provider,
  { target, dep }: Pick<Provisioned, "target" | "dep">,
  before: LoadHostCheck,
  targetRef: string,
): Promise<LoadHostCheck> {
  const endpoint = dep.endpoint;
  refuseProtectedPort(ctx, endpoint);
  const outside = provider.outsideEndpoint?.(target.spec) ?? false;
  let host: string;
  try {
    host = policyHost(new URL(endpoint).hostname);
  } catch {
    throw new RunFailure(`the ${provider.kind} deploy answered "${endpoint}", which is not a URL`);
  }
  // A target opsbench started on this machine (a local kind, a port-forward): the runner's loopback rules.
  if (!outside && isLoopbackAddress(host)) return { host: null };
  const known = outside ? (provider.knownEndpoint?.(target.spec) ?? null) : null;
  // Admitted before deploy for its scheme, host and port (an OpenFaaS gateway's function route is a path below it).
  const admitted =
    known !== null && before.host && sameOrigin(before.host.endpoint, endpoint)
      ? before.host
      : await admitHost(ctx, endpoint, { createdByRun: known === null && !!provider.platformNamesEndpoint, targetRef, suffix: "" });
  await ctx.store.setLoadAdmission(admitted.admission);
  await ctx.store.event("info", describeLoadAdmission(admitted.admission), admitted.admission);
  return { host: admitted };
}

const sameOrigin = (a: string, b: string) => {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
};

const ownAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .map((i) => i?.address)
    .filter((a): a is string => !!a);

/**
 * Admits `endpoint` for the run or throws a RunFailure saying how to admit it. Created-by-run first (the platform
 * named it for this run), then the admin's allowlist, then the workspace's proof of ownership of the pinned address
 * (a DNS TXT record on its reverse name, then the well-known token it serves). A remote host is resolved once here;
 * its first IPv4 address is pinned. A private or shared address passes only the allowlist unless the admin opened its
 * range (OPSBENCH_LOAD_PRIVATE_RANGES): a proof or a platform's answer would otherwise reach into internal networks.
 */
async function admitHost(
  ctx: RunContext,
  endpoint: string,
  opts: { createdByRun: boolean; targetRef: string; suffix: string },
): Promise<AdmittedHost> {
  const allowlist = ctx.deps.loadHosts ?? EMPTY_LOAD_HOST_ALLOWLIST;
  const verdict = loadHostVerdict(endpoint, allowlist);
  const url = new URL(endpoint);
  const host = policyHost(url.hostname);
  const port = urlPort(url);
  const record = (how: LoadAdmissionWay, address: string | null, addresses: string[], detail: string): AdmittedHost => ({
    endpoint,
    admission: { how, host, port, address, addresses, detail, checkedAt: new Date().toISOString() },
  });
  const refuse = (why: string): never => {
    throw new RunFailure(`${why}${opts.suffix}`);
  };
  // Loopback is where opsbench's own services listen: only the admin's address:port entry admits it.
  if (isLoopbackAddress(host)) {
    if (!verdict.allowed) refuse(verdict.message);
    return record("allowlist", null, [], `${url.host} is on OPSBENCH_LOAD_ALLOWED_HOSTS`);
  }
  if (!ctx.deps.k6.remoteLoad) refuse(`load to ${host} could not run: ${REMOTE}`);

  // Resolved once; the first IPv4 address is the one load goes to (k6's sandbox routes IPv4 only).
  let addresses: string[];
  if (isIpAddress(host)) addresses = [host];
  else {
    const found = await hostResolver(ctx.deps.dnsServers)
      .addresses(host)
      .catch((err: Error) => refuse(`load to ${host} refused: it could not be resolved (${err.message})`));
    if (!found.v4.length)
      refuse(
        `load to ${host} refused: it has IPv6 addresses only (${found.v6.join(", ")}), and k6's load network routes IPv4 only; give the target a name with an A record or an IPv4 address`,
      );
    addresses = found.v4;
  }
  const address = addresses[0]!;
  if (address.includes(":"))
    refuse(`load to ${address} refused: k6's load network routes IPv4 only; give the target an IPv4 address or a name with an A record`);
  const named = address === host ? host : `${host} (${address})`;
  // Never the machine's loopback services, the metadata ranges or its own addresses, whatever admits the host.
  if (isLoopbackAddress(address))
    refuse(
      `load to ${named} refused: the name resolves to loopback, where opsbench's own services listen (name a loopback target by its address and port on the admin's allowlist)`,
    );
  // The same rule a target's save is refused by (core load-hosts/save-time-refusal.ts).
  const blocked = neverLoadedRefusal(named, address);
  if (blocked) refuse(blocked);
  if (ownAddresses().includes(address))
    refuse(
      `load to ${named} refused: it is an address of this machine, which the load network never reaches (name a target on this machine by its loopback address)`,
    );
  const hit = port === null ? null : protectedPortVerdict(`http://${address}:${port}`, ctx.deps.k6.blockPorts ?? []);
  if (hit) refuse(hit.message);

  const range = privateRangeOf(address);
  const opened = ctx.deps.privateRanges ?? [];
  if (range && !verdict.allowed && !opened.some((r) => addressInCidr(address, r))) {
    const admin =
      `which no proof of ownership or platform's answer admits: only the admin, with a range of ${LOAD_PRIVATE_RANGES_SETTING} ` +
      `(${opened.length ? `now: ${opened.join(", ")}` : "now empty"}) or the host on OPSBENCH_LOAD_ALLOWED_HOSTS (docs/security.md "Egress policy")`;
    refuse(
      opts.createdByRun
        ? `load to ${named} refused: the deploy answered an address in ${range}, a private or shared range, ${admin}`
        : `${verdict.message}; and its address ${address} is in ${range}, a private or shared range, ${admin}`,
    );
  }
  if (opts.createdByRun) return record("created-by-run", address, addresses, `the deploy of this run returned ${url.host}`);
  if (verdict.allowed) return record("allowlist", address, addresses, `${host} is on OPSBENCH_LOAD_ALLOWED_HOSTS`);
  // The proofs ask servers the user named (a name server, the pinned address): off the host's load lock, so another
  // run is not kept waiting on them; a refusal leaves the lock released (nothing of this run loads any more).
  const prove = async (): Promise<AdmittedHost> => {
    const token = await ctx.store.hostToken(host);
    const txt = await dnsTxtProof(hostResolver(ctx.deps.dnsServers), address, host, token);
    if (txt.ok) return record("dns-txt", address, addresses, txt.found);
    const wellKnown = await wellKnownProof(url, address, token, ctx.signal);
    if (wellKnown.ok) return record("well-known", address, addresses, wellKnown.found);
    return refuse(
      `${verdict.message}; and no proof that the workspace owns it (${wellKnown.found}; ${txt.found}). To load it, ${howToAdmit(url, token, opts.targetRef, address)}`,
    );
  };
  return ctx.host ? ctx.host.away(prove) : prove();
}
