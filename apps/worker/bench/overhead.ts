// npm run bench:overhead [-- --pairs 10 --iterations 30000 --vus 20 --seed 1 --storageSeconds 60]
//
// What does opsbench's measurement cost the load generator? The same k6 binary
// runs a fixed number of iterations against a fast local target, bare (no
// outputs) and with the opsbench output, in pairs whose order is drawn at
// random. Two figures, each the geometric mean of the per-pair ratios with a
// 95% t-interval over the pairs:
// - k6's CPU seconds per 1,000 requests (opsbench / bare): what noise hides
//   least, since a busy neighbour slows k6 down but hardly changes the CPU a
//   request costs it;
// - throughput (opsbench / bare req/s).
// A figure whose interval is wider than +-3% is printed as "inconclusive",
// never as a bare median. Then one full-speed run of --storageSeconds checks
// storage per series-minute (0 skips it).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { compileK6Script, meanConfidenceInterval, seededRandom, workloadSpec } from "@opsbench/core";
import { runStore } from "@opsbench/db";
import { runK6 } from "../../runner/src/k6-process";
import { createLogger } from "../src/logger";
import { ResultWriter } from "../src/result-writer";
import { args, createDb, env, pinning, scratchRun, startEchoServer } from "./bench-support";

const opt = args({ pairs: 10, iterations: 30_000, vus: 20, seed: 1, storageSeconds: 60 });
/** An interval wider than this (relative half-width) says nothing about a few-percent overhead. */
const CONCLUSIVE_HALF_WIDTH = 0.03;
const db = createDb(env.DATABASE_URL);
const log = createLogger("warn");
const workDir = mkdtempSync(path.join(os.tmpdir(), "opsbench-bench-"));

/** A fixed amount of work: `iterations` requests shared by `vus` VUs, as fast as they go. */
const fixedIterations = `import http from "k6/http";
export const options = {
  scenarios: { fixed: { executor: "shared-iterations", vus: ${opt.vus}, iterations: ${opt.iterations}, maxDuration: "10m" } },
};
export default function () {
  http.get(\`\${__ENV.OPSBENCH_BASE_URL}/?input=opsbench\`, { tags: { name: "echo" } });
}
`;

type Variant = "bare" | "opsbench";

interface Trial {
  requests: number;
  rate: number;
  /** User + system CPU seconds of the k6 process. */
  cpuSeconds: number;
}

/**
 * Runs k6 under a shell whose `times` prints its children's CPU use once k6
 * has exited: exact rusage, not samples of /proc taken while it ran.
 */
async function trial(variant: Variant, url: string): Promise<Trial> {
  const script = path.join(workDir, "fixed.js");
  const summary = path.join(workDir, "summary.json");
  writeFileSync(script, fixedIterations);
  rmSync(summary, { force: true });
  const k6Args = [
    "run",
    "--no-color",
    "--quiet",
    ...(variant === "opsbench" ? ["--out", `opsbench=${path.join(workDir, "out.ndjson")}`] : []),
    "--summary-export",
    summary,
    script,
  ];
  const shell = ['"$@" >/dev/null 2>&1; code=$?; times; exit $code', "k6-cpu", env.OPSBENCH_K6, ...k6Args];
  const [cmd, ...cmdArgs] = pinning ? ["taskset", "-c", pinning.k6, "sh", "-c", ...shell] : ["sh", "-c", ...shell];
  const child = spawn(cmd!, cmdArgs, {
    cwd: workDir,
    env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), OPSBENCH_BASE_URL: url, K6_NO_USAGE_REPORT: "true" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr.on("data", (b: Buffer) => (out += b.toString()));
  const code = await new Promise<number>((resolve) => child.once("exit", (c) => resolve(c ?? -1)));
  if (code !== 0) throw new Error(`k6 (${variant}) exited ${code}: ${out.slice(-2000)}`);
  // `times`: the shell's own user and system time, then its children's ("0m1.234s 0m0.056s").
  const children = out.trim().split("\n").at(-1)!;
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  if (seconds.length !== 2) throw new Error(`could not read k6's CPU time from: ${children}`);
  const reqs = (JSON.parse(readFileSync(summary, "utf8")) as { metrics: { http_reqs: { count: number; rate: number } } }).metrics.http_reqs;
  return { requests: reqs.count, rate: reqs.rate, cpuSeconds: seconds[0]! + seconds[1]! };
}

/** The geometric mean of ratios with its 95% t-interval over the pairs, and whether it is narrow enough to say anything. */
function ratioSummary(ratios: number[]) {
  const ci = meanConfidenceInterval(ratios.map(Math.log));
  const est = Math.exp((ci.low + ci.high) / 2);
  const low = Math.exp(ci.low);
  const high = Math.exp(ci.high);
  const conclusive = high / est - 1 <= CONCLUSIVE_HALF_WIDTH && 1 - low / est <= CONCLUSIVE_HALF_WIDTH;
  const text = `${est.toFixed(3)} (95% CI ${low.toFixed(3)} to ${high.toFixed(3)}, ${ratios.length} pairs)`;
  return conclusive ? text : `inconclusive: ${text}, wider than +-${CONCLUSIVE_HALF_WIDTH * 100}%`;
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

async function storageCheck(url: string, runId: string) {
  const store = runStore(db, runId);
  await store.clearResults();
  const writer = new ResultWriter(store, () => {}, log);
  const script = compileK6Script(
    workloadSpec.parse({
      kind: "ramping-vus",
      startVUs: opt.vus,
      stages: [{ duration: `${opt.storageSeconds}s`, target: opt.vus }],
      gracefulRampDown: "0s",
      requests: [{ name: "echo", path: "/?input=opsbench" }],
    }),
  );
  const result = await runK6({
    binary: env.OPSBENCH_K6,
    workDir,
    script,
    env: { OPSBENCH_BASE_URL: url },
    signal: new AbortController().signal,
    onLine: (line) => writer.add(line),
    ...(pinning ? { cpuList: pinning.k6 } : {}),
  });
  await writer.close();
  const t = (result.summary as { metrics: { http_reqs: { count: number; rate: number } } }).metrics.http_reqs;
  const s = await storagePerSeriesMinute(runId);
  console.log(
    `storage: ${opt.storageSeconds} s at full speed (${t.count} requests, ${t.rate.toFixed(0)} req/s): ${s.rows} rows, ${s.series} series, ${(s.bytes / 1024).toFixed(1)} KB -> ${(s.perSeriesMinute / 1024).toFixed(1)} KB per series-minute (bar: <= 50 KB)`,
  );
}

async function main() {
  const echo = await startEchoServer();
  const scratch = opt.storageSeconds > 0 ? await scratchRun(db, "bench:overhead") : null;
  try {
    console.log(
      `bench:overhead: k6 ${env.OPSBENCH_K6.split("/").at(-2)}, ${opt.iterations} iterations x ${opt.pairs} pairs (bare vs opsbench output, order drawn with seed ${opt.seed}), ${opt.vus} VUs, target ${echo.url} (Go echo), ${pinning ? `k6 pinned to CPU ${pinning.k6}, target to CPU ${pinning.target}` : "no CPU pinning"}`,
    );
    await trial("bare", echo.url); // warm-up (page cache, target), not counted
    const rand = seededRandom(opt.seed);
    const cpuRatios: number[] = [];
    const rateRatios: number[] = [];
    for (let i = 0; i < opt.pairs; i++) {
      const order: Variant[] = rand() < 0.5 ? ["bare", "opsbench"] : ["opsbench", "bare"];
      const r: Partial<Record<Variant, Trial>> = {};
      for (const v of order) r[v] = await trial(v, echo.url);
      const perThousand = (t: Trial) => (1000 * t.cpuSeconds) / t.requests;
      cpuRatios.push(perThousand(r.opsbench!) / perThousand(r.bare!));
      rateRatios.push(r.opsbench!.rate / r.bare!.rate);
      console.log(
        `  pair ${String(i + 1).padStart(2)} (${order.join(" first, ")} second): CPU per 1,000 requests bare ${perThousand(r.bare!).toFixed(4)} s, opsbench ${perThousand(r.opsbench!).toFixed(4)} s (x${cpuRatios.at(-1)!.toFixed(3)}); req/s bare ${r.bare!.rate.toFixed(0)}, opsbench ${r.opsbench!.rate.toFixed(0)} (x${rateRatios.at(-1)!.toFixed(3)})`,
      );
    }
    console.log(`k6 CPU seconds per 1,000 requests, opsbench / bare: ${ratioSummary(cpuRatios)}`);
    console.log(`throughput, opsbench / bare req/s: ${ratioSummary(rateRatios)}`);
    if (scratch) await storageCheck(echo.url, scratch.id);
  } finally {
    await scratch?.drop();
    await echo.stop();
    await db.$disconnect();
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench:overhead failed: ${err.message}`);
  process.exit(1);
});
