// Runs the pinned k6 as a child process and streams the opsbench output's
// per-second aggregates from file descriptor 3 (a pipe: nothing touches disk).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync, rmSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import type { Readable } from "node:stream";
import { HISTOGRAM_ALPHA, k6OutputLine, type K6OutputLine } from "@opsbench/core";
import { CLOCK_TICKS_PER_SECOND, cpuTicks } from "@opsbench/providers";
import { systemEnv } from "./env";

/** k6's exit code when thresholds failed: a result, not a crash. */
export const K6_THRESHOLDS_FAILED = 99;

export function k6Version(binary: string): string {
  const r = spawnSync(binary, ["version"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`cannot run k6 at ${binary}: ${r.stderr || r.error?.message}`);
  return /v\d+\.\d+\.\d+/.exec(r.stdout)?.[0] ?? r.stdout.trim();
}

export interface K6Result {
  exitCode: number;
  /** k6's own CPU use over the run, as a share of the machine's cores (100 = all of them). */
  cpuPercentOfMachine: number | null;
  /** k6's own end-of-test summary (--summary-export), if it wrote one. */
  summary: unknown | null;
  outputTail: string;
  malformedLines: number;
}

export async function runK6(opts: {
  binary: string;
  workDir: string;
  script: string;
  env: Record<string, string>;
  signal: AbortSignal;
  onLine: (line: K6OutputLine) => void;
  /** False runs k6 bare, without opsbench's output (benchmarks compare the two). */
  opsbenchOutput?: boolean;
  /** More k6 arguments, e.g. another --out for benchmarks. */
  extraArgs?: string[];
  /** CPUs to pin k6 to (taskset syntax, e.g. "0"), keeping the load generator off the target's cores. */
  cpuList?: string;
}): Promise<K6Result> {
  mkdirSync(opts.workDir, { recursive: true });
  const scriptPath = path.join(opts.workDir, "script.js");
  const summaryPath = path.join(opts.workDir, "k6-summary.json");
  writeFileSync(scriptPath, opts.script);
  rmSync(summaryPath, { force: true });

  const command = opts.cpuList ? ["taskset", "-c", opts.cpuList, opts.binary] : [opts.binary];
  const child = spawn(
    command[0]!,
    [
      ...command.slice(1),
      "run",
      "--no-color",
      "--quiet",
      ...(opts.opsbenchOutput === false ? [] : ["--out", "opsbench=fd:3"]),
      ...(opts.extraArgs ?? []),
      "--summary-export",
      summaryPath,
      scriptPath,
    ],
    { cwd: opts.workDir, env: { ...systemEnv(), ...opts.env, K6_NO_USAGE_REPORT: "true" }, stdio: ["ignore", "pipe", "pipe", "pipe"] },
  );
  let tail = "";
  const keep = (b: Buffer) => (tail = (tail + b.toString()).slice(-6000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);

  // First abort: SIGINT, which k6 treats as a graceful stop. A second, later: SIGKILL.
  const onAbort = () => {
    child.kill("SIGINT");
    setTimeout(() => child.exitCode === null && child.kill("SIGKILL"), 30_000).unref();
  };
  opts.signal.addEventListener("abort", onAbort, { once: true });

  // Sample k6's CPU time while it runs (its /proc entry is gone once it exits).
  const startedAt = Date.now();
  let lastTicks: number | null = null;
  const cpuSampler = setInterval(() => {
    const t = child.pid ? cpuTicks(child.pid) : null;
    if (t !== null) lastTicks = t;
  }, 500);

  let malformed = 0;
  let formatError: string | null = null;
  const lines = readline.createInterface({ input: child.stdio[3] as Readable, crlfDelay: Infinity });
  const reading = (async () => {
    for await (const raw of lines) {
      if (!raw) continue;
      let parsed: ReturnType<typeof k6OutputLine.safeParse> | null;
      try {
        parsed = k6OutputLine.safeParse(JSON.parse(raw));
      } catch {
        parsed = null;
      }
      if (!parsed?.success) malformed++;
      else if (parsed.data.t === "meta" && parsed.data.alpha !== HISTOGRAM_ALPHA) {
        // Buckets of another accuracy would be read wrongly: refuse the whole output.
        formatError = `k6 output writes histograms with alpha ${parsed.data.alpha}, opsbench reads ${HISTOGRAM_ALPHA}; rebuild k6 (npm run k6:build)`;
        child.kill("SIGINT");
      } else if (!formatError) opts.onLine(parsed.data);
    }
  })();

  const exitCode = await new Promise<number>((resolve) => {
    child.once("error", (err) => {
      keep(Buffer.from(String(err)));
      resolve(-1);
    });
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : -1)));
  });
  await reading;
  clearInterval(cpuSampler);
  opts.signal.removeEventListener("abort", onAbort);
  const seconds = (Date.now() - startedAt) / 1000;
  const cpuPercentOfMachine =
    lastTicks !== null && seconds > 0 ? Math.round((10_000 * lastTicks) / CLOCK_TICKS_PER_SECOND / seconds / os.cpus().length) / 100 : null;
  const summary = existsSync(summaryPath) ? JSON.parse(readFileSync(summaryPath, "utf8")) : null;
  if (formatError) throw new Error(formatError);
  return { exitCode, cpuPercentOfMachine, summary, outputTail: tail.trim().split("\n").slice(-15).join("\n"), malformedLines: malformed };
}
