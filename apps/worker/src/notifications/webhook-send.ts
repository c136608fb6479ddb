// One attempt at a webhook delivery: the body, signed, POSTed to the address the egress rule admitted
// (post-pinned.ts: pinned, bounded by a time-out, no redirect followed).
import type { EgressPolicy } from "./egress";
import { postPinned, type SendOutcome } from "./post-pinned";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, webhookSignature } from "./signature";

export type { SendOutcome } from "./post-pinned";

export const WEBHOOK_TIMEOUT_MS = 10_000;

export async function sendWebhook(
  target: { url: string; secret: string },
  body: string,
  policy: EgressPolicy,
  opts: { timeoutMs?: number; userAgent?: string } = {},
): Promise<SendOutcome> {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    "content-type": "application/json",
    "user-agent": opts.userAgent ?? "opsbench-webhooks/1",
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: webhookSignature(target.secret, timestamp, body),
  };
  return postPinned("webhook", target.url, body, headers, policy, opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS);
}
