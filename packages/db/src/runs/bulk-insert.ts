// Many per-second rows at once: one INSERT ... SELECT FROM unnest(arrays) per chunk. Prisma's
// createMany sends a parameter per value and took 38 s for 20,000 result rows here; this takes
// about 4 (a 24 h import has ~200,000 of them and must fit in its transaction).
import type { Db } from "../client";

type Tx = Pick<Db, "$executeRaw">;

const CHUNK = 20_000;

export interface HistogramRow {
  name: string;
  class: string;
  requests: number;
  failures: number;
  sumMs: number;
  minMs: number;
  maxMs: number;
  buckets: Uint8Array;
}

async function chunked<T>(rows: readonly T[], insert: (chunk: readonly T[]) => Promise<unknown>) {
  for (let i = 0; i < rows.length; i += CHUNK) await insert(rows.slice(i, i + CHUNK));
}

const bytes = (rows: readonly HistogramRow[]) => rows.map((r) => Buffer.from(r.buckets));

/** result_seconds rows of one run. */
export function insertResultSeconds(tx: Tx, runId: string, rows: ReadonlyArray<HistogramRow & { ts: Date }>) {
  return chunked(
    rows,
    (c) => tx.$executeRaw`INSERT INTO result_seconds (run_id, ts, name, class, requests, failures, sum_ms, min_ms, max_ms, buckets)
      SELECT ${runId}::uuid, * FROM unnest(${c.map((r) => r.ts)}::timestamptz[], ${c.map((r) => r.name)}::text[], ${c.map((r) => r.class)}::text[],
        ${c.map((r) => r.requests)}::int[], ${c.map((r) => r.failures)}::int[], ${c.map((r) => r.sumMs)}::float8[],
        ${c.map((r) => r.minMs)}::float8[], ${c.map((r) => r.maxMs)}::float8[], ${bytes(c)}::bytea[])`,
  );
}

/** run_rollup_cells rows of one run. */
export function insertRollupCells(
  tx: Tx,
  runId: string,
  rows: ReadonlyArray<HistogramRow & { bucketSeconds: number; offsetSeconds: number }>,
) {
  return chunked(
    rows,
    (
      c,
    ) => tx.$executeRaw`INSERT INTO run_rollup_cells (run_id, bucket_seconds, offset_seconds, name, class, requests, failures, sum_ms, min_ms, max_ms, buckets)
      SELECT ${runId}::uuid, * FROM unnest(${c.map((r) => r.bucketSeconds)}::int[], ${c.map((r) => r.offsetSeconds)}::int[], ${c.map((r) => r.name)}::text[],
        ${c.map((r) => r.class)}::text[], ${c.map((r) => r.requests)}::int[], ${c.map((r) => r.failures)}::int[], ${c.map((r) => r.sumMs)}::float8[],
        ${c.map((r) => r.minMs)}::float8[], ${c.map((r) => r.maxMs)}::float8[], ${bytes(c)}::bytea[])`,
  );
}

export interface LoadRow {
  ts: Date;
  vus: number;
  vusMax: number;
  bytesSent: number;
  bytesReceived: number;
  iterations: number;
  droppedIterations: number;
}

/** load_seconds rows of one run. */
export function insertLoadSeconds(tx: Tx, runId: string, rows: readonly LoadRow[]) {
  return chunked(
    rows,
    (c) => tx.$executeRaw`INSERT INTO load_seconds (run_id, ts, vus, vus_max, bytes_sent, bytes_received, iterations, dropped_iterations)
      SELECT ${runId}::uuid, * FROM unnest(${c.map((r) => r.ts)}::timestamptz[], ${c.map((r) => r.vus)}::int[], ${c.map((r) => r.vusMax)}::int[],
        ${c.map((r) => r.bytesSent)}::float8[], ${c.map((r) => r.bytesReceived)}::float8[], ${c.map((r) => r.iterations)}::int[],
        ${c.map((r) => r.droppedIterations)}::int[])`,
  );
}
