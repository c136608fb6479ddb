// The one mapping between a stored histogram row (result_seconds, run_rollup_cells: the HistogramRow columns of
// bulk-insert.ts) and core's ResultCell. Every reader and writer of those tables goes through it.
import { decodeBuckets, encodeBuckets, type ResultCell } from "@opsbench/core";
import type { HistogramRow } from "./bulk-insert";

/** A stored row as a cell at `ts` (its own second, or epoch + offset for a rollup's cell). */
export const cellFromRow = (r: HistogramRow, ts: Date): ResultCell => ({
  ts,
  name: r.name,
  class: r.class,
  count: r.requests,
  failures: r.failures,
  sum: r.sumMs,
  min: r.minMs,
  max: r.maxMs,
  buckets: decodeBuckets(r.buckets),
});

/** A cell's columns for a stored row (the caller adds its time column). */
export const rowFromCell = (c: ResultCell): HistogramRow => ({
  name: c.name,
  class: c.class,
  requests: c.count,
  failures: c.failures,
  sumMs: c.sum,
  minMs: c.min,
  maxMs: c.max,
  buckets: encodeBuckets(c.buckets),
});
