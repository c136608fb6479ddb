// A group's latency per request name (the comparison's byRequest): each name's requests and its stored quantiles
// of successful responses, from the cells a comparison or a rollup merged. One function for both, so a comparison
// made from seconds and one made from rollups agree (packages/core/test/run-rollup.test.ts).
import { storedQuantilesOf, type StoredQuantileKey } from "../metrics/metric-catalog";
import { summarize, type ResultCell } from "../runs/latency-summary";
import { successFirstLatency } from "../runs/run-summary";

export type RequestLatency = { name: string; requests: number } & Record<StoredQuantileKey, number>;

/** Each request name's figures, names sorted; `seconds`: the span the cells cover. */
export function latencyByRequestName(cells: readonly ResultCell[], seconds: number): RequestLatency[] {
  const names = [...new Set(cells.map((c) => c.name))].sort();
  return names.map((name) => {
    const s = summarize(
      cells.filter((c) => c.name === name),
      seconds,
    );
    return { name, requests: s.requests, ...storedQuantilesOf(successFirstLatency(s)) };
  });
}
