// npm run bench:generators [-- --pairs 3 --seconds 10 --vus 20]: achieved req/s of one load generator
// against two (k6 execution segments 0:1/2 and 1/2:1, each pinned to its own core, started paused and
// resumed together through their REST APIs, as a run on `generators: 2` does) against the Go echo
// server, in alternating order; prints each round, the medians and the ratio. Each generator's rows go
// through opsbench's output and writer into a scratch run, as in a real run.
import os from "node:os";
import path from "node:path";
import { executionSegmentArgs } from "@opsbench/jobs";
import { runStore } from "@opsbench/db";
import { runK6 } from "../../runner/src/k6-process";
import { createLogger } from "../src/logger";
import { ResultWriter } from "../src/result-writer";
import { K6_PAUSED_BEFORE_RUN } from "@opsbench/jobs";
import { K6Control } from "../../runner/src/k6-control";
import { args, env, median, scratchRun, startEchoServer } from "./bench-support";
import { createDb } from "@opsbench/db";

const opt = args({ pairs: 3, seconds: 10, vus: 20 });
const cores = os.cpus().length;
const log = createLogger("warn");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const script = `import http from "k6/http";
export const options = { scenarios: { load: { executor: "constant-vus", vus: ${opt.vus}, duration: "${opt.seconds}s" } } };
export default function () { http.get(\`\${__ENV.OPSBENCH_BASE_URL}/?input=opsbench\`, { tags: { name: "echo" } }); }`;

/** req/s of `count` generators: the sum of each k6's own http_reqs.rate (requests over its test's duration). */
async function trial(count: number, url: string, runId: string, db: ReturnType<typeof createDb>): Promise<number> {
  const controls: Array<K6Control | null> = Array.from({ length: count }, () => null);
  const runs = Array.from({ length: count }, async (_, i) => {
    const writer = new ResultWriter(runStore(db, runId, { segment: i, clockShiftSeconds: 0 }), () => {}, log);
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    try {
      return await runK6({
        binary: env.OPSBENCH_K6,
        workDir: path.join(os.tmpdir(), `opsbench-bench-generators-${process.pid}-${i}`),
        script,
        env: { OPSBENCH_BASE_URL: url },
        signal: new AbortController().signal,
        onLine: (line) => writer.add(line),
        cpuList: String(i % cores),
        extraArgs: count > 1 ? executionSegmentArgs(i, count) : [],
        control: { port, onLaunch: (ns) => (controls[i] = new K6Control(port, ns)) },
      });
    } finally {
      await writer.close();
    }
  });
  // All paused with their VUs up, then resumed together.
  for (;;) {
    const states = await Promise.all(controls.map((c) => c?.status() ?? null));
    if (states.every((s) => s?.paused && s.status >= K6_PAUSED_BEFORE_RUN)) break;
    await sleep(100);
  }
  await Promise.all(controls.map((c) => c!.resume()));
  const results = await Promise.all(runs);
  for (const c of controls) c?.close();
  return results.reduce((sum, r) => sum + (r.summary as { metrics: { http_reqs: { rate: number } } }).metrics.http_reqs.rate, 0);
}

async function main() {
  const db = createDb(env.DATABASE_URL, { max: 3 });
  const scratch = await scratchRun(db, "bench:generators");
  const echo = await startEchoServer();
  console.log(
    `bench:generators: k6 ${env.OPSBENCH_K6.split("/").at(-2)}, ${opt.vus} VUs in all, ${opt.seconds} s trials, ${opt.pairs} pairs, target ${echo.url} (Go echo), ${cores} cores; generator i pinned to CPU i mod ${cores}`,
  );
  try {
    await trial(1, echo.url, scratch.id, db); // warm-up, not counted
    const one: number[] = [];
    const two: number[] = [];
    for (let p = 0; p < opt.pairs; p++) {
      const order = p % 2 === 0 ? [1, 2] : [2, 1];
      const r: Record<number, number> = {};
      for (const n of order) r[n] = await trial(n, echo.url, scratch.id, db);
      one.push(r[1]!);
      two.push(r[2]!);
      console.log(
        `  round ${p + 1}: 1 generator ${r[1]!.toFixed(0)} req/s, 2 generators ${r[2]!.toFixed(0)} req/s (x${(r[2]! / r[1]!).toFixed(3)})`,
      );
    }
    console.log(
      `median: 1 generator ${median(one).toFixed(0)} req/s | 2 generators ${median(two).toFixed(0)} req/s | ratio x${(median(two) / median(one)).toFixed(3)}`,
    );
  } finally {
    await echo.stop();
    await scratch.drop();
    await db.$disconnect();
  }
}

await main();
