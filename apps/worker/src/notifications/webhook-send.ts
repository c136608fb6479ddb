// One attempt at a webhook delivery: a POST of the body, signed, to the address the egress rule admitted (pinned:
// the connection goes there and nowhere else, TLS still checks the URL's name), bounded by a time-out. Redirects are
// not followed (a 3xx is a failed attempt: the receiver named another place, which the rule has not judged). Only a
// short snippet of the answer is kept, for the delivery log.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { OutboundKind } from "@opsbench/core";
import { admittedAddress, type EgressPolicy } from "./egress";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, webhookSignature } from "./signature";

export const WEBHOOK_TIMEOUT_MS = 10_000;
const SNIPPET = 200;

export interface SendOutcome {
  ok: boolean;
  /** The HTTP status (or SMTP reply code); null when none came. */
  code: number | null;
  /** Why it failed, with a snippet of the answer; null when it was delivered. */
  error: string | null;
}

export async function sendWebhook(
  target: { url: string; secret: string },
  body: string,
  policy: EgressPolicy,
  opts: { timeoutMs?: number; userAgent?: string } = {},
): Promise<SendOutcome> {
  const kind: OutboundKind = "webhook";
  const pinned = await admittedAddress(kind, target.url, policy);
  const url = new URL(target.url);
  const timestamp = Math.floor(Date.now() / 1000);
  // Node's own lookup is never asked: every connection of this request goes to the admitted address.
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const request = url.protocol === "https:" ? https.request : http.request;
  return new Promise<SendOutcome>((resolve) => {
    const req = request(
      url,
      {
        method: "POST",
        lookup,
        agent: false,
        timeout: opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "user-agent": opts.userAgent ?? "opsbench-webhooks/1",
          [TIMESTAMP_HEADER]: String(timestamp),
          [SIGNATURE_HEADER]: webhookSignature(target.secret, timestamp, body),
        },
      },
      (res) => {
        let snippet = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          if (snippet.length < SNIPPET) snippet += chunk.slice(0, SNIPPET - snippet.length);
          // The rest is read and dropped: the answer's size is the receiver's business, not the log's.
        });
        res.on("end", () => {
          const code = res.statusCode ?? null;
          if (code !== null && code >= 200 && code < 300) return resolve({ ok: true, code, error: null });
          const redirect =
            code !== null && code >= 300 && code < 400 ? ` (a redirect to ${res.headers.location ?? "?"}, not followed)` : "";
          resolve({ ok: false, code, error: `the receiver answered ${code}${redirect}${snippet ? `: ${snippet.trim()}` : ""}` });
        });
        res.on("error", (err) => resolve({ ok: false, code: res.statusCode ?? null, error: `the answer broke off: ${err.message}` }));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${Math.round((opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS) / 1000)} s`)));
    req.on("error", (err) => resolve({ ok: false, code: null, error: err.message }));
    req.end(body);
  });
}
