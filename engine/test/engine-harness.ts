// Runs opsbench-engine as the runner does (a child process, its opsbench output on a file) against a small HTTP
// server of the test's own on loopback, for the engine's timing, accuracy and conformance tests.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { base64ToBytes, decodeBuckets, emptyHistogram, type Histogram, type K6OutputLine, k6OutputLine, mergeInto } from "@opsbench/core";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { engineBuildInfo } from "../build.mjs";

/** The engine under test: OPSBENCH_ENGINE, else the build of the current sources (npm test's setup makes it). */
export function engineBinary(): string {
  const binary = process.env.OPSBENCH_ENGINE || (engineBuildInfo() as { binary: string }).binary;
  if (!existsSync(binary)) throw new Error(`opsbench-engine is not built at ${binary}: run \`node engine/build.mjs\``);
  return binary;
}

export interface EngineRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The --summary-export file (k6's format), null when the engine wrote none. */
  summary: { metrics: Record<string, Record<string, unknown>> } | null;
  /** The opsbench output's lines. */
  lines: K6OutputLine[];
  dir: string;
}

/**
 * Runs `opsbench-engine run` on a script (text) with the given arguments; env is the script's whole environment.
 * `file` names the script file (default script.js; a declarative workload is "workload.json").
 */
/** The runs' folders (a million-request run's samples are 170 MB): removed when the test file ends. */
const runDirs: string[] = [];
afterAll(() => {
  for (const dir of runDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export async function runEngine(
  script: string,
  opts: { args?: string[]; env?: Record<string, string>; json?: boolean; file?: string } = {},
): Promise<EngineRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-engine-test-"));
  runDirs.push(dir);
  const file = opts.file ?? "script.js";
  writeFileSync(path.join(dir, file), script);
  const args = [
    "run",
    "--quiet",
    "--no-color",
    "--out",
    `opsbench=${path.join(dir, "out.ndjson")}`,
    ...(opts.json ? ["--out", `json=${path.join(dir, "samples.json")}`] : []),
    "--summary-export",
    path.join(dir, "summary.json"),
    ...(opts.args ?? []),
    file,
  ];
  const child = spawn(engineBinary(), args, { cwd: dir, env: { PATH: process.env.PATH ?? "", ...opts.env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const code = await new Promise<number>((resolve) => child.on("exit", (c, sig) => resolve(c ?? (sig ? 128 : -1))));
  const read = (f: string) => (existsSync(path.join(dir, f)) ? readFileSync(path.join(dir, f), "utf8") : null);
  const summaryText = read("summary.json");
  const lines = (read("out.ndjson") ?? "")
    .split("\n")
    .filter(Boolean)
    .map((l) => k6OutputLine.parse(JSON.parse(l)));
  return { code, stdout, stderr, summary: summaryText ? JSON.parse(summaryText) : null, lines, dir };
}

/** http_req_duration of every request, from the engine's `--out json` (k6's JSON output format). */
export function rawDurations(run: EngineRun): number[] {
  const text = readFileSync(path.join(run.dir, "samples.json"), "utf8");
  const out: number[] = [];
  for (const line of text.split("\n")) {
    if (!line.includes('"http_req_duration"')) continue;
    const p = JSON.parse(line) as { type: string; metric: string; data: { value: number } };
    if (p.type === "Point" && p.metric === "http_req_duration") out.push(p.data.value);
  }
  return out;
}

/** The merged latency histogram of the http lines (every second, name and status class). */
export function latencyHistogram(lines: K6OutputLine[], into: Histogram = emptyHistogram()): Histogram {
  for (const l of lines)
    if (l.t === "http") mergeInto(into, { count: l.n, sum: l.sum, min: l.min, max: l.max, buckets: decodeBuckets(base64ToBytes(l.b)) });
  return into;
}

/** k6's percentile: sorted values, rank p*(n-1), linear interpolation. */
export function exactQuantile(sorted: number[], p: number): number {
  const i = p * (sorted.length - 1);
  const lo = sorted[Math.floor(i)]!;
  const hi = sorted[Math.ceil(i)]!;
  return lo + (hi - lo) * (i - Math.floor(i));
}

export interface TestServer {
  url: string;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 answering each request through `handle` (which may wait before answering). */
export async function testServer(
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>,
): Promise<TestServer> {
  const server = http.createServer((req, res) => {
    void Promise.resolve(handle(req, res)).catch(() => res.destroy());
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
