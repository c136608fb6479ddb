// The engine's stored percentiles (its per-second histograms, merged) against the exact latencies of the same
// requests (its k6-format JSON output, a test-only raw dump): within 1% (the histogram's bound is 0.8%), for one
// engine and for a test split into two execution segments whose histograms are merged.
import { type emptyHistogram, quantile } from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exactQuantile, latencyHistogram, rawDurations, runEngine, sleep, type TestServer, testServer } from "./engine-harness";

const PERCENTILES = [0.5, 0.9, 0.95, 0.99];

let server: TestServer;
beforeAll(async () => {
  // A long-tailed spread: most answers at once, some after 1-40 ms.
  let n = 0;
  server = await testServer(async (_req, res) => {
    n++;
    const wait = n % 10 === 0 ? 1 + ((n * 7919) % 40) : n % 3 === 0 ? 1 : 0;
    if (wait) await sleep(wait);
    res.end("ok");
  });
});
afterAll(() => server.close());

const script = `
import http from "k6/http";
export const options = { scenarios: { load: { executor: "constant-vus", vus: 20, duration: "6s" } } };
export default function () { http.get(__ENV.BASE_URL + "/x"); }
`;

function worstError(exact: number[], h: ReturnType<typeof emptyHistogram>): { p: number; exact: number; stored: number; error: number } {
  const sorted = [...exact].sort((a, b) => a - b);
  let worst = { p: 0, exact: 0, stored: 0, error: 0 };
  for (const p of PERCENTILES) {
    const e = exactQuantile(sorted, p);
    const s = quantile(h, p);
    const error = Math.abs(s - e) / e;
    if (error >= worst.error) worst = { p, exact: e, stored: s, error };
  }
  return worst;
}

describe("engine accuracy", () => {
  it("stores percentiles within 1% of the exact latencies of the same requests", async () => {
    const run = await runEngine(script, { env: { BASE_URL: server.url }, json: true });
    expect(run.code, run.stderr).toBe(0);
    const exact = rawDurations(run);
    const h = latencyHistogram(run.lines);
    expect(exact.length).toBeGreaterThan(1000);
    expect(h.count).toBe(exact.length);
    const worst = worstError(exact, h);
    console.log(
      `accuracy, one engine: ${exact.length} requests, worst p${worst.p * 100} ${worst.stored.toFixed(4)} vs ${worst.exact.toFixed(4)} ms (${(worst.error * 100).toFixed(3)}%)`,
    );
    expect(worst.error).toBeLessThanOrEqual(0.01);
  });

  it("stays within 1% when two execution segments' histograms are merged", async () => {
    const segment = (from: string, to: string) => ["--execution-segment", `${from}:${to}`, "--execution-segment-sequence", "0,1/2,1"];
    const [a, b] = await Promise.all([
      runEngine(script, { env: { BASE_URL: server.url }, json: true, args: segment("0", "1/2") }),
      runEngine(script, { env: { BASE_URL: server.url }, json: true, args: segment("1/2", "1") }),
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    // Each segment runs half of the 20 VUs.
    const vus = (r: typeof a) => Math.max(...r.lines.flatMap((l) => (l.t === "load" ? [l.vus] : [])));
    expect(vus(a)).toBe(10);
    expect(vus(b)).toBe(10);
    const exact = [...rawDurations(a), ...rawDurations(b)];
    const h = latencyHistogram(b.lines, latencyHistogram(a.lines));
    expect(h.count).toBe(exact.length);
    const worst = worstError(exact, h);
    console.log(
      `accuracy, two segments merged: ${exact.length} requests, worst p${worst.p * 100} error ${(worst.error * 100).toFixed(3)}%`,
    );
    expect(worst.error).toBeLessThanOrEqual(0.01);
  });
});
