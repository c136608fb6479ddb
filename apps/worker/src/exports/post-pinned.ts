// One POST of an export's body to the address the egress rule admitted (as a webhook's: pinned, no redirect followed,
// bounded by a time-out), with the exporter's credential. Only a short snippet of the answer is kept, for the log.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { admittedAddress, type EgressPolicy } from "../notifications/egress";
import type { SendOutcome } from "../notifications/webhook-send";

export const EXPORT_TIMEOUT_MS = 30_000;
const SNIPPET = 200;

export type ExportCredential = { auth: "none" } | { auth: "bearer"; token: string } | { auth: "basic"; username: string; password: string };

export function authorization(c: ExportCredential): Record<string, string> {
  if (c.auth === "bearer") return { authorization: `Bearer ${c.token}` };
  if (c.auth === "basic") return { authorization: `Basic ${Buffer.from(`${c.username}:${c.password}`).toString("base64")}` };
  return {};
}

export async function postPinned(
  url: string,
  body: Uint8Array,
  headers: Record<string, string>,
  policy: EgressPolicy,
  opts: { timeoutMs?: number } = {},
): Promise<SendOutcome> {
  const pinned = await admittedAddress("results export", url, policy);
  const target = new URL(url);
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const timeoutMs = opts.timeoutMs ?? EXPORT_TIMEOUT_MS;
  const request = target.protocol === "https:" ? https.request : http.request;
  return new Promise<SendOutcome>((resolve) => {
    const req = request(
      target,
      {
        method: "POST",
        lookup,
        agent: false,
        timeout: timeoutMs,
        headers: { ...headers, "content-length": body.length, "user-agent": "opsbench-exporter/1" },
      },
      (res) => {
        let snippet = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          if (snippet.length < SNIPPET) snippet += chunk.slice(0, SNIPPET - snippet.length);
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
