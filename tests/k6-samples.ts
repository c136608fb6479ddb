// k6's own numbers, to check opsbench's against: every http_req_duration sample of k6's JSON output (a generator's
// raw samples, OPSBENCH_K6_KEEP_SAMPLES), and k6's percentile definition.
import { createReadStream } from "node:fs";
import readline from "node:readline";

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
