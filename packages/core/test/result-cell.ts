// A test fixture: one second of results for one request name, built from the latencies it saw.
import { bucketIndex } from "../src/histograms/histogram";
import type { ResultCell } from "../src/runs/latency-summary";

/** One second (`second` after a fixed epoch) of requests named "r" with these latencies (ms). */
export function resultCell(second: number, values: number[], cls = "2xx", failures = 0): ResultCell {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(bucketIndex(v), (counts.get(bucketIndex(v)) ?? 0) + 1);
  return {
    ts: new Date(1_700_000_000_000 + second * 1000),
    name: "r",
    class: cls,
    count: values.length,
    failures,
    sum: values.reduce((a, b) => a + b, 0),
    min: Math.min(...values),
    max: Math.max(...values),
    buckets: [...counts.entries()].sort((a, b) => a[0] - b[0]),
  };
}
