// One POST to the address the egress rule admitted, for every request the server makes on a workspace's behalf (a
// webhook delivery, a results export): pinned (the connection goes there and nowhere else; TLS still checks the
// URL's name), bounded by a time-out, redirects not followed (a 3xx is a failed attempt: the receiver named another
// place, which the rule has not judged). Only a short snippet of the answer is kept, for the delivery log.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { OutboundKind } from "@opsbench/core";
import { admittedAddress, type EgressPolicy } from "./egress";

const SNIPPET = 200;

export interface SendOutcome {
  ok: boolean;
  /** The HTTP status (or SMTP reply code); null when none came. */
  code: number | null;
  /** Why it failed, with a snippet of the answer; null when it was delivered. */
  error: string | null;
}

export async function postPinned(
  kind: OutboundKind,
  url: string,
  body: string | Uint8Array,
  headers: Record<string, string>,
  policy: EgressPolicy,
  timeoutMs: number,
): Promise<SendOutcome> {
  const pinned = await admittedAddress(kind, url, policy);
  const target = new URL(url);
  // Node's own lookup is never asked: every connection of this request goes to the admitted address.
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const request = target.protocol === "https:" ? https.request : http.request;
  return new Promise<SendOutcome>((resolve) => {
    const req = request(
      target,
      {
        method: "POST",
        lookup,
        agent: false,
        timeout: timeoutMs,
        headers: { ...headers, "content-length": Buffer.byteLength(body) },
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
    req.on("timeout", () => req.destroy(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)));
    req.on("error", (err) => resolve({ ok: false, code: null, error: err.message }));
    req.end(body);
  });
}
