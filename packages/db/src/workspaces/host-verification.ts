// Proofs of host ownership (issue 21; core load-hosts/load-admission.ts): a workspace's token for a host is derived from the
// workspace's random key (workspaces.host_verification_key), so nothing is stored per host and the web app (which
// shows it) and the worker (which checks it) agree. Lower-case hex: fits a URL path and a TXT record alike.
import { createHmac } from "node:crypto";
import { dnsVerifyRecord, policyHost, typedEndpointOf, wellKnownVerifyPath } from "@opsbench/core";
import type { Db } from "../client";
import { NotFoundError } from "../errors";
import { isUuid } from "../scope/workspace-access";

export function hostVerificationToken(key: string, host: string): string {
  return createHmac("sha256", key)
    .update(`opsbench-verify\0${policyHost(host)}`)
    .digest("hex")
    .slice(0, 40);
}

/** The token of the workspace for `host`. */
export async function workspaceHostToken(db: Pick<Db, "workspace">, workspaceId: string, host: string): Promise<string> {
  const ws = await db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { hostVerificationKey: true } });
  return hostVerificationToken(ws.hostVerificationKey, host);
}

export interface TargetVerification {
  target: { id: string; name: string; kind: string };
  /** The host the target's spec names, or null when opsbench makes or starts the address itself (nothing to prove). */
  host: string | null;
  token: string | null;
  /** Where the token is looked for: the URL answering 200 with the token as its body, and the TXT record. */
  wellKnownUrl: string | null;
  dnsTxt: { name: string; value: string } | null;
}

/** What a target's owner serves or publishes so the workspace may load its host (by target id or name). */
export async function targetVerification(
  db: Pick<Db, "workspace" | "target">,
  workspaceId: string,
  key: string,
): Promise<TargetVerification> {
  const target = await db.target.findFirst({
    where: isUuid(key) ? { workspaceId, id: key } : { workspaceId, name: key },
    select: { id: true, name: true, kind: true, spec: true },
  });
  if (!target) throw new NotFoundError("target", key);
  const typed = typedEndpointOf(target.spec);
  let url: URL | null = null;
  try {
    url = typed ? new URL(typed) : null;
  } catch {
    url = null;
  }
  const base = { target: { id: target.id, name: target.name, kind: target.kind } };
  if (!url) return { ...base, host: null, token: null, wellKnownUrl: null, dnsTxt: null };
  const host = policyHost(url.hostname);
  const token = await workspaceHostToken(db, workspaceId, host);
  const isName = !/^[\d.]+$/.test(host) && !host.includes(":");
  return {
    ...base,
    host,
    token,
    wellKnownUrl: `${url.protocol}//${url.host}${wellKnownVerifyPath(token)}`,
    dnsTxt: isName ? { name: host, value: dnsVerifyRecord(token) } : null,
  };
}
