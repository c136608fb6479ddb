// npm run bench:accuracy [-- --seconds 20 --vus 10 --windows 20 --seed 1]
//
// How exact are opsbench's percentiles? One k6 run writes both k6's JSON output
// (every request) and opsbench's per-second histograms. Exact percentiles are
// computed from the raw samples (k6's definition: sorted, rank p*(n-1), linear
// interpolation) and compared with opsbench's, over the whole run and over random
// windows. Prints the worst relative error of p50/p90/p95/p99.
import { createReadStream, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { compileK6Script, summarize, workloadSpec } from "@opsbench/core";
import { loadResultCells, runStore } from "@opsbench/db";
import { freePort, spawnGroup, stopGroup } from "@opsbench/host";
import { runK6 } from "../../runner/src/k6-process";
import { createLogger } from "../src/logger";
import { ResultWriter } from "../src/result-writer";
import { args, createDb, env, scratchRun } from "./bench-support";

const opt = args({ seconds: 20, vus: 10, windows: 20, seed: 1 });
const db = createDb(env.DATABASE_URL);
const PERCENTILES = [0.5, 0.9, 0.95, 0.99] as const;

function exactPercentile(sorted: number[], p: number): number {
  const i = p * (sorted.length - 1);
  const lo = sorted[Math.floor(i)]!;
  const hi = sorted[Math.ceil(i)]!;
  return lo + (hi - lo) * (i - Math.floor(i));
}

function random(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x = (x * 1664525 + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

async function main() {
  const workDir = mkdtempSync(path.join(os.tmpdir(), "opsbench-accuracy-"));
  const jsonFile = path.join(workDir, "k6.json");
  const port = await freePort();
  // Taewa with a mixed difficulty gives a wide, long-tailed latency spread.
  const app = spawnGroup(process.execPath, ["server.js"], {
    cwd: path.resolve(import.meta.dirname, "../../../benchapps/cpu-loop/node-http"),
    env: { PORT: String(port) },
  });
  const scratch = await scratchRun(db, "bench:accuracy");
  try {
    for (
      let i = 0;
      i < 100 &&
      !(await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      ));
      i++
    )
      await new Promise((r) => setTimeout(r, 50));
    const writer = new ResultWriter(runStore(db, scratch.id), () => {}, createLogger("warn"));
    const script = compileK6Script(
      workloadSpec.parse({
        kind: "ramping-vus",
        startVUs: 0,
        stages: [
          { duration: `${Math.round(opt.seconds / 4)}s`, target: opt.vus },
          { duration: `${opt.seconds - Math.round(opt.seconds / 4)}s`, target: opt.vus },
        ],
        gracefulRampDown: "0s",
        requests: [
          { name: "light", path: "/?n=100" },
          { name: "heavy", path: "/?n=200000" },
        ],
      }),
    );
    const result = await runK6({
      binary: env.OPSBENCH_ENGINE,
      workDir,
      script,
      env: { OPSBENCH_BASE_URL: `http://127.0.0.1:${port}` },
      signal: new AbortController().signal,
      onLine: (l) => writer.add(l),
      extraArgs: ["--out", `json=${jsonFile}`],
    });
    await writer.close();
    if (result.exitCode !== 0) throw new Error(`k6 exited ${result.exitCode}: ${result.outputTail}`);

    // Raw samples from k6's JSON output, keyed by their second.
    const raw: Array<{ second: number; value: number }> = [];
    for await (const line of readline.createInterface({ input: createReadStream(jsonFile) })) {
      if (!line.includes('"http_req_duration"') || !line.includes('"Point"')) continue;
      const p = JSON.parse(line);
      raw.push({ second: Math.floor(Date.parse(p.data.time) / 1000), value: p.data.value });
    }
    const cells = await loadResultCells(db, scratch.id);
    const first = Math.min(...raw.map((r) => r.second));
    const last = Math.max(...raw.map((r) => r.second));

    const rand = random(opt.seed);
    const windows: Array<[number, number]> = [[first, last + 1]];
    for (let i = 0; i < opt.windows; i++) {
      const a = first + Math.floor(rand() * (last - first - 1));
      const b = a + 2 + Math.floor(rand() * (last + 1 - a - 2));
      windows.push([a, Math.min(b, last + 1)]);
    }
    let worst = { error: 0, where: "" };
    console.log(
      `bench:accuracy: ${raw.length} requests from k6's JSON output, ${cells.length} opsbench rows, ${windows.length - 1} random windows + the whole run`,
    );
    for (const [i, [a, b]] of windows.entries()) {
      const values = raw
        .filter((r) => r.second >= a && r.second < b)
        .map((r) => r.value)
        .sort((x, y) => x - y);
      const ours = summarize(
        cells.filter((c) => c.ts.getTime() / 1000 >= a && c.ts.getTime() / 1000 < b),
        b - a,
      );
      if (ours.requests !== values.length)
        throw new Error(`window ${a - first}-${b - first} s: opsbench counted ${ours.requests} requests, k6's JSON has ${values.length}`);
      const errors = PERCENTILES.map((p) => {
        const exact = exactPercentile(values, p);
        const mine = ours.latencyMs[`p${Math.round(p * 100)}` as "p50"];
        const error = Math.abs(mine - exact) / exact;
        if (error > worst.error)
          worst = { error, where: `p${Math.round(p * 100)} of ${i === 0 ? "the whole run" : `seconds ${a - first}-${b - first}`}` };
        return error;
      });
      if (i === 0 || i <= 3) {
        console.log(
          `  ${i === 0 ? "whole run" : `window ${a - first}-${b - first} s`}: n=${values.length}, error p50/p90/p95/p99 = ${errors.map((e) => `${(e * 100).toFixed(3)}%`).join(" / ")}`,
        );
      }
    }
    console.log(`worst relative error of p50/p90/p95/p99: ${(worst.error * 100).toFixed(3)}% (${worst.where}) (bar: <= 1%)`);
  } finally {
    await scratch.drop();
    await stopGroup(app.pid);
    await db.$disconnect();
  }
}

main().catch((err) => {
  console.error(`bench:accuracy failed: ${err.message}`);
  process.exit(1);
});
