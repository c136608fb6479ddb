// One POST of an export's body with the exporter's credential, through the same pinned sender as a webhook
// (notifications/post-pinned.ts: the egress rule's address, no redirect followed, bounded by a time-out).
import type { EgressPolicy } from "../notifications/egress";
import { postPinned, type SendOutcome } from "../notifications/post-pinned";

export const EXPORT_TIMEOUT_MS = 30_000;

export type ExportCredential = { auth: "none" } | { auth: "bearer"; token: string } | { auth: "basic"; username: string; password: string };

export function authorization(c: ExportCredential): Record<string, string> {
  if (c.auth === "bearer") return { authorization: `Bearer ${c.token}` };
  if (c.auth === "basic") return { authorization: `Basic ${Buffer.from(`${c.username}:${c.password}`).toString("base64")}` };
  return {};
}

/** POSTs an export's body to the exporter's URL. */
export function postExport(
  url: string,
  body: Uint8Array,
  headers: Record<string, string>,
  policy: EgressPolicy,
  opts: { timeoutMs?: number } = {},
): Promise<SendOutcome> {
  return postPinned(
    "results export",
    url,
    body,
    { ...headers, "user-agent": "opsbench-exporter/1" },
    policy,
    opts.timeoutMs ?? EXPORT_TIMEOUT_MS,
  );
}
