// npm run bench:generators [-- --pairs 10 --seconds 8 --vus 20]: achieved req/s of one load generator HOST against
// two, loading one remote target. Each generator host is a network namespace of its own with its own runner inside
// (tests/generator-hosts.ts), pinned to its own core; k6 runs in that runner's sandbox and reaches the target (the Go
// echo server in a third namespace) through the runner's routed egress, as a run on `generators: 2` spread over two
// machines does: k6 execution segments 0:1/2 and 1/2:1 of the same VUs, started paused and resumed together through
// the runners. Each k6's lines go through opsbench's output and writer into a scratch run, as in a real run.
// Pairs alternate the order (1 then 2, 2 then 1); the scaling ratio (req/s of two hosts over req/s of one, within a
// pair) is printed per pair and as a median with min/max and a 95% bootstrap interval of the median over pairs.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { K6_PAUSED_BEFORE_RUN, type K6Result } from "@opsbench/jobs";
import { runStore } from "@opsbench/db";
import { createLogger } from "../src/logger";
import { ResultWriter } from "../src/result-writer";
import { RunnerClient } from "../src/runner-client";
import { makeGeneratorHost, type GeneratorHost, routeBack } from "../../../tests/generator-hosts";
import { makeRemoteHost, type RemoteHost } from "../../../tests/remote-hosts";
import { args, createDb, env, median, scratchRun } from "./bench-support";

const opt = args({ pairs: 10, seconds: 8, vus: 20, port: 8080 });
if (opt.pairs < 1 || opt.seconds < 1 || opt.vus < 2) throw new Error("--pairs and --seconds must be at least 1, --vus at least 2");
const cores = os.cpus().length;
const log = createLogger("warn");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const repoRoot = path.resolve(import.meta.dirname, "../../..");

const script = `import http from "k6/http";
export const options = { scenarios: { load: { executor: "constant-vus", vus: ${opt.vus}, duration: "${opt.seconds}s" } } };
export default function () { http.get(\`\${__ENV.OPSBENCH_BASE_URL}/?input=opsbench\`, { tags: { name: "echo" } }); }`;

/** The Go echo server in the target's namespace, pinned to the last core. */
async function startGoEcho(target: RemoteHost): Promise<ChildProcess> {
  const binary = path.join(os.tmpdir(), "opsbench-echo-go");
  const build = spawnSync("go", ["build", "-o", binary, "."], { cwd: path.join(repoRoot, "benchapps/echo/go"), encoding: "utf8" });
  if (build.status !== 0) throw new Error(`building benchapps/echo/go failed: ${build.stderr}`);
  const child = spawn("ip", ["netns", "exec", target.ns, "taskset", "-c", String(cores - 1), binary], {
    env: { PORT: String(opt.port), HOST: "0.0.0.0" },
    stdio: "ignore",
  });
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(`http://${target.address}:${opt.port}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return child;
    await sleep(100);
  }
  child.kill("SIGKILL");
  throw new Error(`the Go echo server in ${target.ns} did not answer on ${target.address}:${opt.port}`);
}

/** req/s of the first `count` hosts loading together: the sum of each k6's own http_reqs.rate. */
async function trial(
  hosts: GeneratorHost[],
  count: number,
  url: string,
  runId: string,
  db: ReturnType<typeof createDb>,
  n: number,
): Promise<number> {
  const used = hosts.slice(0, count);
  const clients = used.map((h) => new RunnerClient(h.runner.socket));
  const launched = used.map(() => false);
  const runs = used.map(async (_, i) => {
    const writer = new ResultWriter(runStore(db, runId, { segment: i, clockShiftSeconds: 0 }), () => {}, log);
    try {
      return await clients[i]!.runK6(
        {
          key: `bench-generators-${n}-${i}`,
          script,
          env: { OPSBENCH_BASE_URL: url },
          deadline: { graceSeconds: 60, maxSeconds: opt.seconds + 120 },
          segment: count > 1 ? { index: i, count } : null,
          paused: true,
          keepSamplesAs: null,
          blockHosts: [],
          blockPorts: [],
          limits: null,
        },
        { signal: new AbortController().signal, onLine: (line) => writer.add(line), onLaunch: () => (launched[i] = true) },
      );
    } finally {
      await writer.close();
    }
  });
  // All paused with their VUs up, then resumed together.
  const until = Date.now() + 60_000;
  for (;;) {
    const states = await Promise.all(
      clients.map((c, i) => (launched[i] ? c.control(`bench-generators-${n}-${i}`, "status").catch(() => null) : null)),
    );
    if (states.every((s) => s?.paused && s.status >= K6_PAUSED_BEFORE_RUN)) break;
    if (Date.now() > until) throw new Error("the generators' k6 did not come up paused within 60 s");
    await sleep(100);
  }
  await Promise.all(clients.map((c, i) => c.control(`bench-generators-${n}-${i}`, "resume")));
  const results: K6Result[] = await Promise.all(runs);
  for (const r of results)
    if (r.exitCode !== 0 || r.unsandboxed)
      throw new Error(`a generator's k6 failed (exit ${r.exitCode}${r.unsandboxed ? ", unsandboxed" : ""}): ${r.outputTail}`);
  return results.reduce((sum, r) => sum + (r.summary as { metrics: { http_reqs: { rate: number } } }).metrics.http_reqs.rate, 0);
}

/** A 95% percentile-bootstrap interval of the median of `xs` (10,000 resamples, a fixed seed: the same input prints the same interval). */
function bootstrapMedian(xs: number[]): [number, number] {
  let seed = 0x2545f491;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const medians = Array.from({ length: 10_000 }, () => median(xs.map(() => xs[Math.floor(random() * xs.length)]!))).sort((a, b) => a - b);
  return [medians[Math.floor(0.025 * medians.length)]!, medians[Math.ceil(0.975 * medians.length) - 1]!];
}

async function main() {
  const db = createDb(env.DATABASE_URL, { max: 3 });
  const scratch = await scratchRun(db, "bench:generators");
  const hosts: GeneratorHost[] = [];
  let target: RemoteHost | null = null;
  let echo: ChildProcess | null = null;
  try {
    target = await makeRemoteHost();
    echo = await startGoEcho(target);
    await routeBack(target);
    for (let i = 0; i < 2; i++)
      hosts.push(await makeGeneratorHost({ databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL, core: i % cores }));
    const url = `http://${target.address}:${opt.port}`;
    console.log(
      `bench:generators: k6 ${env.OPSBENCH_ENGINE.split("/").at(-2)}, ${opt.vus} VUs in all, ${opt.seconds} s trials, ${opt.pairs} pairs, ` +
        `target ${url} (Go echo in namespace ${target.ns}, CPU ${cores - 1}), generator hosts ${hosts.map((h, i) => `${h.ns} (CPU ${i % cores})`).join(", ")}, ${cores} cores; ` +
        "each generator host's k6 reaches the target through its own runner's routed sandbox",
    );
    let n = 0;
    await trial(hosts, 1, url, scratch.id, db, n++); // warm-up, not counted
    const one: number[] = [];
    const two: number[] = [];
    const ratios: number[] = [];
    for (let p = 0; p < opt.pairs; p++) {
      const order = p % 2 === 0 ? [1, 2] : [2, 1];
      const r: Record<number, number> = {};
      for (const count of order) r[count] = await trial(hosts, count, url, scratch.id, db, n++);
      one.push(r[1]!);
      two.push(r[2]!);
      ratios.push(r[2]! / r[1]!);
      console.log(
        `  pair ${p + 1} (${order.join(" then ")}): 1 host ${r[1]!.toFixed(0)} req/s, 2 hosts ${r[2]!.toFixed(0)} req/s (x${(r[2]! / r[1]!).toFixed(3)})`,
      );
    }
    const [lo, hi] = bootstrapMedian(ratios);
    console.log(
      `1 host: median ${median(one).toFixed(0)} req/s (min ${Math.min(...one).toFixed(0)}, max ${Math.max(...one).toFixed(0)}) | ` +
        `2 hosts: median ${median(two).toFixed(0)} req/s (min ${Math.min(...two).toFixed(0)}, max ${Math.max(...two).toFixed(0)})`,
    );
    console.log(
      `scaling ratio (2 hosts / 1 host, per pair): median x${median(ratios).toFixed(3)}, min x${Math.min(...ratios).toFixed(3)}, max x${Math.max(...ratios).toFixed(3)}, ` +
        `95% bootstrap interval of the median x${lo.toFixed(3)} to x${hi.toFixed(3)} (${opt.pairs} pairs)`,
    );
  } finally {
    for (const h of hosts) await h.remove();
    echo?.kill("SIGKILL");
    await target?.remove();
    await scratch.drop();
    await db.$disconnect();
  }
}

await main();
