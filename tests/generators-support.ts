// Shared by the tests of runs on several load generators: their workload, and k6's own numbers to check opsbench's
// against (every http_req_duration sample of k6's JSON output: a generator's raw samples, OPSBENCH_K6_KEEP_SAMPLES;
// k6's percentile definition; a summary's request count).
import { createReadStream } from "node:fs";
import readline from "node:readline";
import { workloadInput } from "@opsbench/core";
import { expect } from "vitest";

/** `vus` VUs on `/?input=opsbench` for `seconds`, split over two generators. */
export const twoGeneratorWorkload = (name: string, seconds: number, vus = 4) =>
  workloadInput.parse({
    name,
    spec: {
      kind: "constant-vus",
      vus,
      duration: `${seconds}s`,
      generators: 2,
      requests: [{ name: "echo", method: "GET", path: "/?input=opsbench", headers: {} }],
    },
  });

/** k6's definition: the value at rank p*(n-1), interpolated between neighbours. */
export function percentile(sorted: Float64Array, p: number): number {
  const rank = p * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

/** Every http_req_duration sample of k6's JSON output. */
export async function durations(file: string): Promise<number[]> {
  const out: number[] = [];
  for await (const line of readline.createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (!line.includes('"http_req_duration"') || !line.includes('"Point"')) continue;
    out.push((JSON.parse(line) as { data: { value: number } }).data.value);
  }
  return out;
}

/** The request count of a k6 summary (summary-export). */
export const k6Requests = (summary: unknown) => (summary as { metrics: { http_reqs: { count: number } } }).metrics.http_reqs.count;

/**
 * The merged histograms against every raw sample of every generator: the same count, and p50/p90/p95/p99 within 1%
 * of the exact ones. Returns "exact vs opsbench" for the test's log line.
 */
export function expectMergedPercentiles(
  all: Float64Array,
  summary: { requests: number; latencyMs: Record<"p50" | "p90" | "p95" | "p99", number> },
): string {
  expect(all.length).toBe(summary.requests);
  const keys = [
    [0.5, "p50"],
    [0.9, "p90"],
    [0.95, "p95"],
    [0.99, "p99"],
  ] as const;
  for (const [p, key] of keys) {
    const exact = percentile(all, p);
    expect(Math.abs(summary.latencyMs[key] - exact) / exact, `${key}: opsbench ${summary.latencyMs[key]} vs exact ${exact}`).toBeLessThan(
      0.01,
    );
  }
  return `p50/p90/p95/p99 ${keys.map(([p]) => percentile(all, p).toFixed(3)).join("/")} ms exact vs ${keys.map(([, k]) => summary.latencyMs[k]).join("/")} ms`;
}
