// A ProviderContext for driving providers directly (no run, no database):
// saved states and events are kept in memory for the test to look at.
import { readFileSync } from "node:fs";
import path from "node:path";
import http from "node:http";
import type { ProviderContext } from "../src";

export const repoBenchapps = path.resolve(import.meta.dirname, "../../../benchapps");
export const fixtures = path.resolve(import.meta.dirname, "fixtures");

export function testContext(benchappsDir = repoBenchapps) {
  const events: Array<{ level: string; message: string }> = [];
  const states: unknown[] = [];
  const controller = new AbortController();
  const ctx: ProviderContext = {
    runId: "00000000-0000-0000-0000-000000000000",
    signal: controller.signal,
    log: () => {},
    benchappsDir,
    saveState: async (s) => void states.push(structuredClone(s)),
    event: async (level, message) => void events.push({ level, message }),
  };
  return { ctx, events, states, abort: () => controller.abort() };
}

/** GET with a status, body and headers; `agent` false = a fresh connection. */
export function get(
  url: string,
  agent: http.Agent | false = false,
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      })
      .on("error", reject);
  });
}

export async function until<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 15_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Running (a zombie not yet reaped by this test process counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}
