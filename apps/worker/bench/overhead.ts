// npm run bench:overhead [-- --pairs 5 --seconds 10 --vus 20 --storageSeconds 60]
//
// How much does opsbench's measurement cost the load generator? Against the same
// fast local target, in one process, it alternates bare k6 (no outputs) and k6
// as opsbench runs it (the opsbench output, aggregation, and storage in Postgres),
// and prints the ratio of achieved req/s per pair: median, min and max. k6's own
// JSON output is measured alongside for reference. Then one full-speed run of
// --storageSeconds checks storage per series-minute.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { compileK6Script, workloadSpec } from "@opsbench/core";
import { runStore } from "@opsbench/db";
import { runK6 } from "../src/k6-process";
import { createLogger } from "../src/logger";
import { ResultWriter } from "../src/result-writer";
import { args, createDb, env, median, pinning, scratchRun, startEchoServer } from "./bench-support";

const opt = args({ pairs: 5, seconds: 10, vus: 20, storageSeconds: 60 });
const db = createDb(env.DATABASE_URL);
const log = createLogger("warn");
const workDir = mkdtempSync(path.join(os.tmpdir(), "opsbench-bench-"));

const script = (seconds: number) =>
  compileK6Script(
    workloadSpec.parse({
      kind: "ramping-vus",
      startVUs: opt.vus,
      stages: [{ duration: `${seconds}s`, target: opt.vus }],
      gracefulRampDown: "0s",
      requests: [{ name: "echo", path: "/?input=opsbench" }],
    }),
  );

type Variant = "bare" | "opsbench" | "k6-json";

async function trial(variant: Variant, url: string, runId: string, seconds = opt.seconds) {
  const store = runStore(db, runId);
  await store.clearResults();
  const writer = new ResultWriter(store, () => {}, log);
  const result = await runK6({
    binary: env.OPSBENCH_K6,
    workDir,
    script: script(seconds),
    env: { OPSBENCH_BASE_URL: url },
    signal: new AbortController().signal,
    onLine: (line) => writer.add(line),
    opsbenchOutput: variant === "opsbench",
    extraArgs: variant === "k6-json" ? ["--out", `json=${path.join(workDir, "k6.json")}`] : [],
    ...(pinning ? { cpuList: pinning.k6 } : {}),
  });
  await writer.close();
  if (result.exitCode !== 0) throw new Error(`k6 (${variant}) exited ${result.exitCode}: ${result.outputTail}`);
  const reqs = (result.summary as { metrics: { http_reqs: { count: number; rate: number } } }).metrics.http_reqs;
  return { rate: reqs.rate, count: reqs.count };
}

async function storagePerSeriesMinute(runId: string) {
  const [row] = await db.$queryRawUnsafe<Array<{ rows: bigint; series: bigint; seconds: number; bytes: bigint }>>(
    `SELECT count(*) AS rows, count(DISTINCT (name, class)) AS series,
            extract(epoch FROM max(ts) - min(ts)) + 1 AS seconds,
            sum(pg_column_size(r.*)) AS bytes
       FROM result_seconds r WHERE run_id = $1::uuid`,
    runId,
  );
  // Each row also costs a heap tuple header and line pointer (~28 B) and two index entries (~40 B).
  const rows = Number(row!.rows);
  const bytes = Number(row!.bytes) + rows * 68;
  const seriesMinutes = (Number(row!.series) * Number(row!.seconds)) / 60;
  return { rows, series: Number(row!.series), seconds: Number(row!.seconds), bytes, perSeriesMinute: bytes / seriesMinutes };
}

async function main() {
  const echo = await startEchoServer();
  const scratch = await scratchRun(db, "bench:overhead");
  try {
    console.log(
      `bench:overhead: k6 ${env.OPSBENCH_K6.split("/").at(-2)}, ${opt.vus} VUs, ${opt.seconds} s a trial, ${opt.pairs} rounds, target ${echo.url} (Go echo), ${pinning ? `k6 pinned to CPU ${pinning.k6}, target to CPU ${pinning.target}` : "no CPU pinning"}`,
    );
    await trial("bare", echo.url, scratch.id, 3); // warm-up, not counted
    const ratios: number[] = [];
    const jsonRatios: number[] = [];
    for (let i = 0; i < opt.pairs; i++) {
      // Alternate the order so a drift of the machine does not favour one side.
      const order: Variant[] = i % 2 === 0 ? ["bare", "opsbench", "k6-json"] : ["k6-json", "opsbench", "bare"];
      const rates: Partial<Record<Variant, number>> = {};
      for (const v of order) rates[v] = (await trial(v, echo.url, scratch.id)).rate;
      ratios.push(rates.opsbench! / rates.bare!);
      jsonRatios.push(rates["k6-json"]! / rates.bare!);
      console.log(
        `  round ${i + 1}: bare ${rates.bare!.toFixed(0)} req/s, opsbench ${rates.opsbench!.toFixed(0)} req/s (x${ratios.at(-1)!.toFixed(3)}), k6 --out json ${rates["k6-json"]!.toFixed(0)} req/s (x${jsonRatios.at(-1)!.toFixed(3)})`,
      );
    }
    const fmt = (xs: number[]) => `median ${median(xs).toFixed(3)} (min ${Math.min(...xs).toFixed(3)}, max ${Math.max(...xs).toFixed(3)})`;
    console.log(`opsbench / bare k6 req/s: ${fmt(ratios)}`);
    console.log(`k6 --out json / bare k6 req/s (reference): ${fmt(jsonRatios)}`);

    const t = await trial("opsbench", echo.url, scratch.id, opt.storageSeconds);
    const s = await storagePerSeriesMinute(scratch.id);
    console.log(
      `storage: ${opt.storageSeconds} s at full speed (${t.count} requests, ${(t.rate).toFixed(0)} req/s): ${s.rows} rows, ${s.series} series, ${(s.bytes / 1024).toFixed(1)} KB -> ${(s.perSeriesMinute / 1024).toFixed(1)} KB per series-minute (bar: <= 50 KB)`,
    );
  } finally {
    await scratch.drop();
    await echo.stop();
    await db.$disconnect();
  }
}

main().catch((err) => {
  console.error(`bench:overhead failed: ${err.message}`);
  process.exit(1);
});
