// k6 result files a test writes itself, with every request's time, latency and outcome known, and imports with the
// code of `opsbench import k6` (apps/cli): the data behind tests whose right answer the test computes on its own.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { createDb } from "@opsbench/db";
import { importUpload } from "../apps/cli/src/import-k6";
import { readImportUpload } from "../apps/cli/src/import-k6-file";
import { testDatabaseUrl, testRedisUrl } from "./helpers";

/** One request of a written file: when it started (ms after the file's start), its latency, whether it succeeded. */
export interface WrittenRequest {
  atMs: number;
  ms: number;
  ok: boolean;
  /** The request's name tag (default "get"). */
  name?: string;
  /** Its HTTP status (default 200 when ok, else 503). */
  status?: number;
}

/** A second's load counters a written file also holds: k6's iterations and dropped_iterations, and its vus gauge. */
export interface WrittenLoadSecond {
  second: number;
  iterations?: number;
  dropped?: number;
  vus?: number;
}

export interface K6FileOptions {
  /** The file's start, epoch ms. */
  t0: number;
  /** Extra load counters per second; without them each request counts one iteration. */
  load?: readonly WrittenLoadSecond[];
  /** More arguments for `opsbench import k6` (its provenance and series: --commit SHA --series NAME ...). */
  importArgs?: readonly string[];
}

const point = (metric: string, atMs: number, value: number, tags: Record<string, string>) =>
  JSON.stringify({ type: "Point", metric, data: { time: new Date(atMs).toISOString(), value, tags } });

/** k6's JSON output (`--out json=FILE`) of these requests: one http_req_duration point each, and the load counters. */
export function k6JsonLines(requests: readonly WrittenRequest[], o: K6FileOptions): string {
  const lines = requests.map((r) =>
    point("http_req_duration", o.t0 + r.atMs, r.ms, {
      name: r.name ?? "get",
      status: String(r.status ?? (r.ok ? 200 : 503)),
      expected_response: String(r.ok),
    }),
  );
  if (o.load)
    for (const l of o.load) {
      if (l.iterations) lines.push(point("iterations", o.t0 + l.second * 1000, l.iterations, {}));
      if (l.dropped) lines.push(point("dropped_iterations", o.t0 + l.second * 1000, l.dropped, {}));
      if (l.vus) lines.push(point("vus", o.t0 + l.second * 1000, l.vus, {}));
    }
  else for (const r of requests) lines.push(point("iterations", o.t0 + r.atMs, 1, {}));
  return `${lines.join("\n")}\n`;
}

/**
 * Writes the file into `dir` and imports it as `opsbench import k6 FILE --name NAME [importArgs]` does, with the
 * command's own code (its reading of the file and arguments, then importUpload) in this process; the run's id.
 * In process because these files import a file to have a run: a CLI process a file took a second of CPU to start,
 * and some files import dozens. The command itself, as a process, is import-k6.test.ts's and the packed CLI's.
 */
export async function importK6Requests(dir: string, name: string, requests: readonly WrittenRequest[], o: K6FileOptions): Promise<string> {
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, k6JsonLines(requests, o));
  const said: string[] = [];
  const read = await readImportUpload([file, "--name", name, "--json", ...(o.importArgs ?? [])], {
    say: (m) => said.push(m),
    usageError: (m) => new Error(`opsbench import k6 ${file}: ${m}`),
  });
  if (typeof read === "number") throw new Error(`opsbench import k6 ${file} refused the file (exit ${read}): ${said.join("\n")}`);
  const db = createDb(testDatabaseUrl(), { max: 1 });
  try {
    return (await importUpload(db, testRedisUrl(), read.upload)).id;
  } finally {
    await db.$disconnect();
  }
}

/** k6's percentile of values: sorted, rank p*(n-1), linear interpolation. */
export function exactQuantile(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  const rank = p * (s.length - 1);
  const lo = Math.floor(rank);
  return s[lo]! + (s[Math.ceil(rank)]! - s[lo]!) * (rank - lo);
}
