// npm run bench:engine [-- --rounds 5 --seconds 8 --connections 50 --vus 1000]
//
// What load costs the load generator: requests per CPU-second of the generator, side by side in one run against the
// same local server (study 001's Go echo server, pinned to its own core; each generator pinned to the other), for
// opsbench-engine's declarative path and its script path (a k6 script on the JS runtime) and the permissively
// licensed tools a user would compare: wrk and hey (Debian), vegeta (Go module proxy), autocannon (npm). Every
// generator runs closed-loop with the same number of connections; the round order is shuffled each round. The
// requests are the server's own count (GET /served), the CPU time getrusage's of the generator's process tree.
// Then the memory of 1,000 VUs: peak RSS of the engine holding that many VUs (each sleeping between requests).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { compileDeclarativeWorkload, workloadSpec } from "@opsbench/core";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { engineBuildInfo } from "../build.mjs";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const VEGETA = "github.com/tsenart/vegeta/v12@v12.13.0";

function options(defaults: Record<string, number>): Record<string, number> {
  const out = { ...defaults };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i]!.replace(/^--/, "");
    if (!(key in out) || Number.isNaN(Number(argv[i + 1])))
      throw new Error(
        `unknown or bad option ${argv[i]}; options: ${Object.keys(defaults)
          .map((k) => `--${k} N`)
          .join(" ")}`,
      );
    out[key] = Number(argv[i + 1]);
  }
  return out;
}
const opt = options({ rounds: 5, seconds: 8, connections: 50, vus: 1000 });

const pinned = os.cpus().length >= 2 && spawnSync("taskset", ["-c", "0", "true"]).status === 0;
const onCore = (core: string, cmd: string[]) => (pinned ? ["taskset", "-c", core, ...cmd] : cmd);

function has(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
}

/** wrk and hey from Debian's packages (installed when missing and root), vegeta built from the Go module proxy. */
function ensureTools(): { vegeta: string } {
  const missing = ["wrk", "hey"].filter((t) => !has(t));
  if (missing.length) {
    if (process.getuid?.() !== 0) throw new Error(`bench:engine needs ${missing.join(", ")} (apt-get install -y ${missing.join(" ")})`);
    spawnSync("apt-get", ["update"], { stdio: "ignore" });
    const r = spawnSync("apt-get", ["install", "-y", "--no-install-recommends", ...missing], { stdio: "inherit" });
    if (r.status !== 0) throw new Error(`apt-get install ${missing.join(" ")} failed`);
  }
  const dir = path.join(repoRoot, ".tools", `vegeta-${VEGETA.split("@")[1]}`);
  const vegeta = path.join(dir, "vegeta");
  if (!existsSync(vegeta)) {
    const tmp = `${dir}.tmp-${process.pid}`;
    mkdirSync(tmp, { recursive: true });
    const r = spawnSync("go", ["install", "-trimpath", VEGETA], {
      cwd: tmp,
      stdio: "inherit",
      env: { ...process.env, GOBIN: tmp, CGO_ENABLED: "0" },
    });
    if (r.status !== 0) throw new Error(`go install ${VEGETA} failed`);
    renameSync(tmp, dir);
  }
  return { vegeta };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function startEcho(work: string): Promise<{ url: string; stop: () => void }> {
  const binary = path.join(work, "echo-go");
  const build = spawnSync("go", ["build", "-o", binary, "."], { cwd: path.join(repoRoot, "benchapps/echo/go"), encoding: "utf8" });
  if (build.status !== 0) throw new Error(`building benchapps/echo/go failed: ${build.stderr}`);
  const port = await freePort();
  const [cmd, ...args] = onCore("1", [binary]);
  const child = spawn(cmd!, args, { env: { PORT: String(port), HOST: "127.0.0.1" }, stdio: "ignore" });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, stop: () => child.kill() };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill();
  throw new Error("the echo server did not start");
}

interface Usage {
  code: number;
  cpuSeconds: number;
  maxRssKb: number;
}

/** Runs a command under rusage.py; its CPU time and peak RSS. */
function measured(cmd: string[], work: string, env: Record<string, string> = {}): Promise<Usage> {
  const out = path.join(work, `rusage-${process.hrtime.bigint()}.json`);
  return new Promise((resolve, reject) => {
    const child = spawn("python3", [path.join(import.meta.dirname, "rusage.py"), ...cmd], {
      cwd: work,
      env: { PATH: process.env.PATH ?? "", HOME: work, ...env, RUSAGE_OUT: out, RUSAGE_QUIET: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
    child.on("exit", () => {
      if (!existsSync(out)) return reject(new Error(`${cmd.join(" ")} did not report: ${stderr}`));
      const u = JSON.parse(readFileSync(out, "utf8")) as Usage;
      if (u.code !== 0) return reject(new Error(`${cmd.join(" ")} exited ${u.code}: ${stderr}`));
      resolve(u);
    });
  });
}

const served = async (url: string) => Number(await (await fetch(`${url}/served`)).text());

/** The same closed-loop load as a generated workload: what the presets and the form compile to (core). */
function declarativeWorkload(vus: number, seconds: number, thinkSeconds = 0): string {
  const spec = workloadSpec.parse({
    kind: "constant-vus",
    vus,
    duration: `${seconds}s`,
    gracefulStop: "5s",
    requests: [{ name: "echo", path: "/?input=x" }],
    ...(thinkSeconds ? { thinkTime: `${thinkSeconds}s` } : {}),
  });
  if (spec.kind !== "constant-vus") throw new Error("unreachable");
  return compileDeclarativeWorkload(spec);
}

function scriptWorkload(vus: number, seconds: number, thinkSeconds = 0): string {
  return `import http from "k6/http";
import { sleep } from "k6";
export const options = { scenarios: { load: { executor: "constant-vus", vus: ${vus}, duration: "${seconds}s", gracefulStop: "5s" } } };
const URL = __ENV.OPSBENCH_BASE_URL + "/?input=x";
export default function () { http.get(URL, { tags: { name: "echo" } });${thinkSeconds ? ` sleep(${thinkSeconds});` : ""} }
`;
}

/** 95% interval of a mean (Student's t, two-sided). */
function interval(xs: number[]): { mean: number; half: number } {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, half: Number.NaN };
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const t = [12.71, 4.3, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26][n - 2] ?? 2.0;
  return { mean, half: (t * sd) / Math.sqrt(n) };
}

function shuffled<T>(xs: T[], seed: number): T[] {
  const out = [...xs];
  let x = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    x = (x * 1664525 + 1013904223) >>> 0;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function main() {
  const engine = (engineBuildInfo() as { binary: string }).binary;
  if (!existsSync(engine)) throw new Error(`opsbench-engine is not built at ${engine}: run npm run engine:build`);
  const { vegeta } = ensureTools();
  const autocannon = path.join(repoRoot, "node_modules/.bin/autocannon");
  if (!existsSync(autocannon)) throw new Error("autocannon is missing: run npm install");
  const work = mkdtempSync(path.join(os.tmpdir(), "opsbench-bench-engine-"));
  const echo = await startEcho(work);
  const s = opt.seconds;
  const c = opt.connections;
  const url = `${echo.url}/?input=x`;
  writeFileSync(path.join(work, "workload.json"), declarativeWorkload(c, s));
  writeFileSync(path.join(work, "script.js"), scriptWorkload(c, s));
  const engineRun = (file: string) =>
    onCore("0", [engine, "run", "--quiet", "--no-summary", "--out", `opsbench=${path.join(work, "out.ndjson")}`, file]);
  const generators: Record<string, { cmd: string[]; env?: Record<string, string> }> = {
    "engine, declarative": { cmd: engineRun("workload.json"), env: { OPSBENCH_BASE_URL: echo.url } },
    "engine, k6 script": { cmd: engineRun("script.js"), env: { OPSBENCH_BASE_URL: echo.url } },
    "wrk 4.1.0": { cmd: onCore("0", ["wrk", "-t1", `-c${c}`, `-d${s}s`, url]) },
    "hey 0.1.4": { cmd: onCore("0", ["hey", "-z", `${s}s`, "-c", String(c), url]) },
    "vegeta 12.13.0": {
      cmd: onCore("0", [
        "sh",
        "-c",
        `echo "GET ${url}" | ${vegeta} attack -rate=0 -max-workers=${c} -workers=${c} -duration=${s}s > /dev/null`,
      ]),
    },
    "autocannon 9.0.0": { cmd: onCore("0", [process.execPath, autocannon, "-c", String(c), "-d", String(s), url]) },
  };
  const perCpu: Record<string, number[]> = Object.fromEntries(Object.keys(generators).map((k) => [k, []]));
  const rps: Record<string, number[]> = Object.fromEntries(Object.keys(generators).map((k) => [k, []]));
  console.log(
    `bench:engine: ${opt.rounds} rounds x ${Object.keys(generators).length} generators, ${s} s each, ${c} connections, closed loop; ` +
      `${pinned ? "generator on CPU 0, echo server on CPU 1" : "no CPU pinning"}; ${os.cpus().length} cores`,
  );
  try {
    for (let round = 0; round < opt.rounds; round++) {
      for (const name of shuffled(Object.keys(generators), round + 1)) {
        const g = generators[name]!;
        const before = await served(echo.url);
        const u = await measured(g.cmd, work, g.env);
        const requests = (await served(echo.url)) - before;
        perCpu[name]!.push(requests / u.cpuSeconds);
        rps[name]!.push(requests / s);
        console.log(
          `  round ${round + 1} ${name.padEnd(20)} ${requests} requests, ${u.cpuSeconds.toFixed(2)} CPU-s, ${(requests / u.cpuSeconds).toFixed(0)} req/CPU-s`,
        );
      }
    }
    console.log("\nrequests per CPU-second of the generator (mean, 95% interval), and requests per second:");
    const rows = Object.keys(generators).map((name) => ({ name, cpu: interval(perCpu[name]!), rps: interval(rps[name]!) }));
    for (const r of rows)
      console.log(
        `  ${r.name.padEnd(20)} ${r.cpu.mean.toFixed(0).padStart(7)} +- ${r.cpu.half.toFixed(0).padStart(5)} req/CPU-s   ${r.rps.mean.toFixed(0).padStart(7)} req/s`,
      );
    const of = (n: string) => rows.find((r) => r.name === n)!.cpu.mean;
    const bestGo = Math.max(of("hey 0.1.4"), of("vegeta 12.13.0"));
    console.log(
      `  declarative / best Go tool: ${(of("engine, declarative") / bestGo).toFixed(2)}x; declarative / wrk: ${(of("engine, declarative") / of("wrk 4.1.0")).toFixed(2)}x; ` +
        `script / declarative: ${(of("engine, k6 script") / of("engine, declarative")).toFixed(2)}x`,
    );

    console.log(`\nmemory: peak RSS of the engine with 1 VU and with ${opt.vus} VUs (each: a request, then 1 s of sleep), 5 s:`);
    writeFileSync(path.join(work, "idle-1.json"), declarativeWorkload(1, 5, 1));
    writeFileSync(path.join(work, "idle-n.json"), declarativeWorkload(opt.vus, 5, 1));
    writeFileSync(path.join(work, "idle-1.js"), scriptWorkload(1, 5, 1));
    writeFileSync(path.join(work, "idle-n.js"), scriptWorkload(opt.vus, 5, 1));
    for (const [label, one, many] of [
      ["declarative", "idle-1.json", "idle-n.json"],
      ["k6 script", "idle-1.js", "idle-n.js"],
    ] as const) {
      const a = await measured(engineRun(one), work, { OPSBENCH_BASE_URL: echo.url });
      const b = await measured(engineRun(many), work, { OPSBENCH_BASE_URL: echo.url });
      const per1000 = ((b.maxRssKb - a.maxRssKb) / 1024 / opt.vus) * 1000;
      console.log(
        `  ${label.padEnd(12)} 1 VU ${(a.maxRssKb / 1024).toFixed(0)} MB, ${opt.vus} VUs ${(b.maxRssKb / 1024).toFixed(0)} MB: ${per1000.toFixed(1)} MB per 1,000 VUs`,
      );
    }
  } finally {
    echo.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
