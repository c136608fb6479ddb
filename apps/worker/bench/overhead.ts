// npm run bench:overhead [-- --blocks 40 --seconds 10 --warmup 3 --rate 2000 --vus 50 --seed 1 --storageSeconds 60 --realtime 0 --keepBusy 0]
//
// What does opsbench's measurement cost the load generator, beside k6's own `--out json`? Every trial is a k6
// run through the production path (the runner's runK6: the same sandbox, load network and pinning as a real run)
// at a fixed arrival rate (an open model: every variant is offered exactly the same requests per second), in
// one of three variants:
// - bare: no output;
// - opsbench: the output extension on fd 3, read by the worker's ResultWriter and written to Postgres, as a run's are;
// - json: k6's `--out json` to a file in the run's directory (what parsing k6's own stream would start from).
// k6's CPU (its process group's user + system ticks from /proc) is read when the warm-up ends and again one
// second before the load does, so k6's start-up and wind-down are outside the window; CPU per request is the
// ticks in that steady window over the requests the target answered in it (the echo server's own counter, read
// at the same two moments). A block in which a window got less than 95% of the planned rate (a busy machine made
// k6 drop iterations) is left out and said so. Blocks of the three variants run in an order drawn from the
// seed; each block gives two ratios (opsbench / bare, json / bare). Short trials (10 s, 6 s counted) and many
// blocks: on a virtual machine k6's CPU per request drifts by several % over a minute, so the three trials of a
// block are kept close in time (20 s trials gave per-block ratios about twice as spread as 10 s ones). Printed: each figure's geometric mean with
// its 95% t-interval over the blocks, "inconclusive" when the interval is wider than +-2%. Then one full-speed
// run of --storageSeconds checks storage per series-minute (0 skips it). `--realtime 1` (root) runs k6 and the
// target at real-time FIFO priority on their pinned cores, so a shared machine's other processes cannot preempt
// them (a quiet machine's conditions); the CPU counted is still k6's own.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { compileK6Script, meanConfidenceInterval, seededRandom, workloadSpec } from "@opsbench/core";
import { runStore } from "@opsbench/db";
import { CLOCK_TICKS_PER_SECOND, groupCpuTicks } from "@opsbench/host";
import { runK6 } from "../../runner/src/k6-process";
import { STRICT_SANDBOX } from "../../runner/src/k6-sandbox";
import { createLogger } from "../src/logger";
import { ResultWriter } from "../src/result-writer";
import { args, createDb, env, keepCoresBusy, pinning, realtimeGroup, scratchRun, startEchoServer } from "./bench-support";

const opt = args({ blocks: 40, seconds: 10, warmup: 3, rate: 2000, vus: 50, seed: 1, storageSeconds: 60, realtime: 0, keepBusy: 0 });
/** An interval wider than this (relative half-width) cannot resolve a 2% overhead. */
const CONCLUSIVE_HALF_WIDTH = 0.02;
/** A trial that sent fewer of its planned requests than this is refused. */
const MIN_SENT = 0.95;
const db = createDb(env.DATABASE_URL);
const log = createLogger("warn");
const workDir = mkdtempSync(path.join(os.tmpdir(), "opsbench-bench-"));

const VARIANTS = ["bare", "opsbench", "json"] as const;
type Variant = (typeof VARIANTS)[number];

const script = compileK6Script(
  workloadSpec.parse({
    kind: "constant-arrival-rate",
    rate: opt.rate,
    timeUnit: "1s",
    duration: `${opt.seconds}s`,
    preAllocatedVUs: opt.vus,
    maxVUs: opt.vus,
    requests: [{ name: "echo", path: "/?input=opsbench" }],
  }),
);

interface Trial {
  /** k6's CPU seconds in the steady window. */
  cpuSeconds: number;
  /** Requests the target answered in the window. */
  requests: number;
  /** Those requests as a share of what the rate planned in the window. */
  sent: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function trial(variant: Variant, url: string, scratchRunId: string | null): Promise<Trial> {
  const dir = path.join(workDir, variant);
  const store = variant === "opsbench" && scratchRunId ? runStore(db, scratchRunId) : null;
  if (store) await store.clearResults();
  const writer = store ? new ResultWriter(store, () => {}, log) : null;
  let pid: number | null = null;
  const ticks = () => (pid === null ? undefined : groupCpuTicks([pid]).get(pid));
  const served = async () => Number(await (await fetch(`${url}/served`)).text());
  const window: { t0?: number; c0?: number; s0?: number; t1?: number; c1?: number; s1?: number } = {};
  const sampler = (async () => {
    while (pid === null) await sleep(20);
    const started = Date.now();
    if (opt.realtime) {
      // Once k6 has started inside its sandbox, and again before the window (a process started since is caught).
      await sleep(500);
      realtimeGroup(pid);
    }
    await sleep(opt.warmup * 1000 - (Date.now() - started));
    if (opt.realtime && realtimeGroup(pid) === 0) throw new Error("--realtime: chrt changed no process of k6's group (not root?)");
    [window.t0, window.c0, window.s0] = [Date.now(), ticks(), await served()];
    await sleep(Math.max(0, (opt.seconds - 1) * 1000 - (Date.now() - started)));
    [window.t1, window.c1, window.s1] = [Date.now(), ticks(), await served()];
  })();
  const result = await runK6({
    binary: env.OPSBENCH_ENGINE,
    workDir: dir,
    script,
    env: { OPSBENCH_BASE_URL: url },
    signal: new AbortController().signal,
    sandbox: STRICT_SANDBOX,
    opsbenchOutput: variant === "opsbench",
    extraArgs: variant === "json" ? ["--out", "json=k6-out.json"] : [],
    onLine: (line) => writer?.add(line),
    onOwned: (owned) => {
      if (owned.pid !== null) pid = owned.pid;
    },
    ...(pinning ? { cpuList: pinning.k6 } : {}),
  });
  await sampler;
  await writer?.close();
  rmSync(dir, { recursive: true, force: true });
  if (result.exitCode !== 0) throw new Error(`k6 (${variant}) exited ${result.exitCode}: ${result.outputTail}`);
  if (window.c0 === undefined || window.c1 === undefined) throw new Error(`k6 (${variant}) ended before its steady window did`);
  const requests = window.s1! - window.s0!;
  return {
    cpuSeconds: (window.c1 - window.c0) / CLOCK_TICKS_PER_SECOND,
    requests,
    sent: requests / ((opt.rate * (window.t1! - window.t0!)) / 1000),
  };
}

/** The geometric mean of ratios with its 95% t-interval over the blocks, and whether it resolves +-2%. */
function ratioSummary(ratios: number[]) {
  const ci = meanConfidenceInterval(ratios.map(Math.log));
  const est = Math.exp((ci.low + ci.high) / 2);
  const low = Math.exp(ci.low);
  const high = Math.exp(ci.high);
  const conclusive = high / est - 1 <= CONCLUSIVE_HALF_WIDTH && 1 - low / est <= CONCLUSIVE_HALF_WIDTH;
  const text = `${est.toFixed(3)} (95% CI ${low.toFixed(3)} to ${high.toFixed(3)}, +-${((100 * (high - low)) / 2 / est).toFixed(1)}%, ${ratios.length} blocks)`;
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
  const full = compileK6Script(
    workloadSpec.parse({
      kind: "ramping-vus",
      startVUs: 20,
      stages: [{ duration: `${opt.storageSeconds}s`, target: 20 }],
      gracefulRampDown: "0s",
      requests: [{ name: "echo", path: "/?input=opsbench" }],
    }),
  );
  const result = await runK6({
    binary: env.OPSBENCH_ENGINE,
    workDir,
    script: full,
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
  if (opt.seconds - 1 - opt.warmup < 5)
    throw new Error("--seconds must leave at least 5 s of steady load after --warmup (and the last second)");
  const echo = await startEchoServer();
  const stopBusy = opt.keepBusy ? keepCoresBusy(pinning ? [pinning.k6, pinning.target] : ["0"]) : async () => {};
  if (opt.realtime && realtimeGroup(echo.pid) === 0)
    throw new Error("--realtime: chrt changed no process of the target's group (not root?)");
  const scratch = await scratchRun(db, "bench:overhead");
  try {
    console.log(
      `bench:overhead: k6 ${env.OPSBENCH_ENGINE.split("/").at(-2)}, ${opt.blocks} blocks of bare / opsbench output (fd -> worker -> Postgres) / --out json, order drawn with seed ${opt.seed}; each ${opt.seconds} s at ${opt.rate} req/s (constant arrival rate, ${opt.vus} VUs), CPU counted from second ${opt.warmup} to ${opt.seconds - 1}; sandboxed as a run; target ${echo.url} (Go echo), ${pinning ? `k6 pinned to CPU ${pinning.k6}, target to CPU ${pinning.target}` : "no CPU pinning"}${opt.realtime ? ", both at real-time FIFO priority" : ""}${opt.keepBusy ? "; an idle-priority busy loop on each core" : ""}`,
    );
    await trial("bare", echo.url, null); // warm-up (page cache, target), not counted
    const rand = seededRandom(opt.seed);
    const ratios: Record<Exclude<Variant, "bare">, number[]> = { opsbench: [], json: [] };
    let skipped = 0;
    for (let i = 0; i < opt.blocks; i++) {
      // A random order of the three (Fisher-Yates with the seeded generator).
      const order: Variant[] = [...VARIANTS];
      for (let j = order.length - 1; j > 0; j--) {
        const k = Math.floor(rand() * (j + 1));
        [order[j], order[k]] = [order[k]!, order[j]!];
      }
      const r: Partial<Record<Variant, Trial>> = {};
      for (const v of order) r[v] = await trial(v, echo.url, scratch.id);
      const short = VARIANTS.filter((v) => r[v]!.sent < MIN_SENT);
      if (short.length) {
        skipped++;
        console.log(
          `  block ${String(i + 1).padStart(2)} left out: ${short.map((v) => `${v} got ${(100 * r[v]!.sent).toFixed(1)}%`).join(", ")} of the planned ${opt.rate} req/s (k6 dropped iterations; lower --rate if this recurs)`,
        );
        continue;
      }
      const perThousand = (t: Trial) => (1000 * t.cpuSeconds) / t.requests;
      ratios.opsbench.push(perThousand(r.opsbench!) / perThousand(r.bare!));
      ratios.json.push(perThousand(r.json!) / perThousand(r.bare!));
      const sent = VARIANTS.map((v) => `${v} ${(100 * r[v]!.sent).toFixed(1)}%`).join(", ");
      console.log(
        `  block ${String(i + 1).padStart(2)} (${order.join(", ")}): CPU per 1,000 requests bare ${perThousand(r.bare!).toFixed(4)} s, opsbench ${perThousand(r.opsbench!).toFixed(4)} s (x${ratios.opsbench.at(-1)!.toFixed(3)}), json ${perThousand(r.json!).toFixed(4)} s (x${ratios.json.at(-1)!.toFixed(3)}); sent ${sent}`,
      );
    }
    if (skipped) console.log(`${skipped} of ${opt.blocks} blocks left out (a window under ${MIN_SENT * 100}% of the planned rate)`);
    if (ratios.opsbench.length < 2) throw new Error("fewer than 2 blocks kept: lower --rate");
    console.log(`k6 CPU per request, opsbench output / bare: ${ratioSummary(ratios.opsbench)}`);
    console.log(`k6 CPU per request, --out json / bare:      ${ratioSummary(ratios.json)}`);
    if (opt.storageSeconds > 0) await storageCheck(echo.url, scratch.id);
  } finally {
    await scratch.drop();
    await stopBusy();
    await echo.stop();
    await db.$disconnect();
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench:overhead failed: ${err.message}`);
  process.exit(1);
});
