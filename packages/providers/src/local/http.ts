// Small HTTP calls of the local engine (health checks, admin ports), on fresh
// connections (no pooled keep-alive sockets left in the worker that would hold
// a stopping process open).
import http from "node:http";
import { ProviderError } from "../provider";
import { sleep, type Spawned } from "@opsbench/host";

export function request(
  url: string,
  opts: { method?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = http.request(
      url,
      {
        method: opts.method ?? "GET",
        agent: false,
        timeout: opts.timeoutMs ?? 2000,
        headers: payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer from ${url} within ${opts.timeoutMs ?? 2000} ms`)));
    req.on("error", reject);
    req.end(payload);
  });
}

/** GET/PUT JSON on an admin port; throws on a non-2xx answer. */
export async function adminCall<T>(url: string, method = "GET", body?: unknown): Promise<T> {
  const res = await request(url, { method, body, timeoutMs: 5000 });
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${url}: ${res.status} ${res.body.slice(0, 200)}`);
  return JSON.parse(res.body) as T;
}

/** Polls `url` until it answers 2xx; fails fast if the process exits. */
export async function waitHealthy(url: string, proc: Spawned, timeoutMs: number, signal: AbortSignal, what = "benchapp"): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (signal.aborted) throw new ProviderError(`aborted while waiting for the ${what} to start`);
    const exit = proc.exit();
    if (exit)
      throw new ProviderError(`${what} exited during start-up (${exit.signal ?? `code ${exit.code}`}): ${proc.tail() || "no output"}`);
    try {
      const res = await request(url, { timeoutMs: 1000 });
      if (res.status >= 200 && res.status < 300) return;
    } catch {
      /* not listening yet */
    }
    await sleep(50);
  }
  throw new ProviderError(`${what} did not answer ${url} within ${timeoutMs} ms: ${proc.tail() || "no output"}`);
}
