// The k6 conformance corpus: every script in scripts/ runs through opsbench-engine (env
// OPSBENCH_ENGINE, else engine/build.mjs's build, else .tools/opsbench-engine/) against a local test server, and
// its exit code, --summary-export values, server hits, files and output must match cases.json.
// The same corpus runs against a real k6 binary too (OPSBENCH_ENGINE=/path/to/k6), except the
// cases marked engineOnly (modules opsbench-engine refuses on purpose).
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { engineBuildInfo } from "../build.mjs";
import { startTestServer, type TestServer } from "./test-server";

const here = path.dirname(fileURLToPath(import.meta.url));
const scriptsDir = path.join(here, "scripts");
const repoRoot = path.resolve(here, "../..");
/** OPSBENCH_ENGINE, else the build of the current sources (engine/build.mjs), else the lead's manual build. */
function engineBinary(): string {
  if (process.env.OPSBENCH_ENGINE) return process.env.OPSBENCH_ENGINE;
  const keyed = (engineBuildInfo() as { binary: string }).binary;
  return existsSync(keyed) ? keyed : path.join(repoRoot, ".tools/opsbench-engine/opsbench-engine");
}
const engine = engineBinary();
/** Set when OPSBENCH_ENGINE is a real k6: its cases marked engineOnly are skipped. */
const isRealK6 = path.basename(engine) === "k6";
const CONCURRENCY = 2;
const RUN_TIMEOUT_MS = 30_000;

type Matcher = number | string | boolean | { min?: number; max?: number } | { absentOrZero: true };

interface Case {
  exit: number;
  env?: Record<string, string>;
  /** metric -> field -> expected; a metric given as null must be absent. */
  metrics?: Record<string, Record<string, Matcher> | null>;
  /** metric -> threshold expression -> crossed (the summary export's own meaning). */
  thresholds?: Record<string, Record<string, boolean>>;
  /** "METHOD /path" -> requests the server saw (path without the case prefix and query). */
  hits?: Record<string, Matcher>;
  /** Every "<prefix><n>" for n in from..to was hit `each` times, and no other key has the prefix. */
  hitsRange?: { prefix: string; from: number; to: number; each: number };
  /** path relative to the run's working directory -> expected content. */
  files?: Record<string, { json?: Record<string, unknown>; contains?: string[] }>;
  stdout?: string[];
  stderr?: string[];
  minSeconds?: number;
  maxSeconds?: number;
  /** Why real k6 behaves differently (opsbench-engine refuses what k6 implements). */
  engineOnly?: string;
}

const manifest = JSON.parse(readFileSync(path.join(here, "cases.json"), "utf8")) as { cases: Record<string, Case> };
const cases = Object.entries(manifest.cases);

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  seconds: number;
  dir: string;
}

/** At most CONCURRENCY engine runs at once: timing-driven scripts need the CPU. */
function limiter(n: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
const limit = limiter(CONCURRENCY);

function runEngine(script: string, env: Record<string, string>): Promise<RunResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-conformance-"));
  cpSync(scriptsDir, dir, { recursive: true });
  const args = ["run", "--quiet", "--no-color", "--summary-export", path.join(dir, "summary.json"), script];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(engine, args, { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, seconds: (performance.now() - started) / 1000, dir });
    });
  });
}

const EPSILON = 1e-9;

/** Describes how `actual` fails `want`, or returns null when it matches. */
function mismatch(want: Matcher, actual: unknown): string | null {
  if (typeof want === "object" && "absentOrZero" in want) {
    return actual === undefined || actual === 0 ? null : `expected absent or 0, got ${JSON.stringify(actual)}`;
  }
  if (typeof want === "object") {
    if (typeof actual !== "number")
      return `expected a number in [${want.min ?? "-inf"}, ${want.max ?? "inf"}], got ${JSON.stringify(actual)}`;
    if (want.min !== undefined && actual < want.min - EPSILON) return `expected >= ${want.min}, got ${actual}`;
    if (want.max !== undefined && actual > want.max + EPSILON) return `expected <= ${want.max}, got ${actual}`;
    return null;
  }
  if (typeof want === "number") {
    if (typeof actual !== "number") return `expected ${want}, got ${JSON.stringify(actual)}`;
    return Math.abs(actual - want) <= EPSILON * Math.max(1, Math.abs(want)) ? null : `expected ${want}, got ${actual}`;
  }
  return actual === want ? null : `expected ${JSON.stringify(want)}, got ${JSON.stringify(actual)}`;
}

type SummaryMetric = Record<string, unknown> & { thresholds?: Record<string, boolean> };

function checkCase(name: string, c: Case, run: RunResult, hits: Map<string, number>): string[] {
  const problems: string[] = [];
  const fail = (what: string, detail: string) => problems.push(`${name}: ${what}: ${detail}`);

  if (run.code !== c.exit) fail("exit code", `expected ${c.exit}, got ${run.code ?? `signal ${run.signal}`}`);
  if (c.minSeconds !== undefined && run.seconds < c.minSeconds)
    fail("run time", `expected >= ${c.minSeconds}s, took ${run.seconds.toFixed(2)}s`);
  if (c.maxSeconds !== undefined && run.seconds > c.maxSeconds)
    fail("run time", `expected <= ${c.maxSeconds}s, took ${run.seconds.toFixed(2)}s`);

  if (c.metrics || c.thresholds) {
    const file = path.join(run.dir, "summary.json");
    if (!existsSync(file)) {
      fail("summary export", "no summary.json was written");
    } else {
      const summary = JSON.parse(readFileSync(file, "utf8")) as { metrics?: Record<string, SummaryMetric> };
      const metrics = summary.metrics ?? {};
      for (const [metric, fields] of Object.entries(c.metrics ?? {})) {
        const m = metrics[metric];
        if (fields === null) {
          if (m !== undefined) fail(`metric ${metric}`, `expected absent, got ${JSON.stringify(m)}`);
          continue;
        }
        for (const [field, want] of Object.entries(fields)) {
          const isAbsentOk = typeof want === "object" && "absentOrZero" in want;
          if (m === undefined && !isAbsentOk) {
            fail(`metric ${metric}`, "missing from the summary export");
            break;
          }
          const why = mismatch(want, m?.[field]);
          if (why) fail(`${metric}.${field}`, why);
        }
      }
      for (const [metric, exprs] of Object.entries(c.thresholds ?? {})) {
        const got = metrics[metric]?.thresholds;
        for (const [expr, crossed] of Object.entries(exprs)) {
          const why = mismatch(crossed, got?.[expr]);
          if (why) fail(`threshold ${metric} '${expr}' crossed`, why);
        }
      }
    }
  }

  for (const [key, want] of Object.entries(c.hits ?? {})) {
    const why = mismatch(want, hits.get(key) ?? 0);
    if (why) fail(`server hits of ${key}`, why);
  }
  if (c.hitsRange) {
    const { prefix, from, to, each } = c.hitsRange;
    for (let i = from; i <= to; i++) {
      const why = mismatch(each, hits.get(`${prefix}${i}`) ?? 0);
      if (why) fail(`server hits of ${prefix}${i}`, why);
    }
    for (const key of hits.keys()) {
      const n = Number(key.slice(prefix.length));
      if (key.startsWith(prefix) && !(Number.isInteger(n) && n >= from && n <= to)) fail("server hits", `unexpected ${key}`);
    }
  }

  for (const [rel, want] of Object.entries(c.files ?? {})) {
    const file = path.join(run.dir, rel);
    if (!existsSync(file)) {
      fail(`file ${rel}`, "was not written");
      continue;
    }
    const text = readFileSync(file, "utf8");
    for (const s of want.contains ?? []) if (!text.includes(s)) fail(`file ${rel}`, `does not contain ${JSON.stringify(s)}`);
    if (want.json) {
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        fail(`file ${rel}`, `is not JSON: ${text.slice(0, 200)}`);
      }
      for (const [k, v] of Object.entries(want.json)) {
        if (JSON.stringify(parsed[k]) !== JSON.stringify(v))
          fail(`file ${rel} .${k}`, `expected ${JSON.stringify(v)}, got ${JSON.stringify(parsed[k])}`);
      }
    }
  }

  for (const s of c.stdout ?? []) if (!run.stdout.includes(s)) fail("stdout", `does not contain ${JSON.stringify(s)}`);
  for (const s of c.stderr ?? []) if (!run.stderr.includes(s)) fail("stderr", `does not contain ${JSON.stringify(s)}`);
  return problems;
}

const tail = (s: string, n = 2000) => (s.length > n ? `...${s.slice(-n)}` : s);

describe("k6 conformance corpus", () => {
  if (!existsSync(engine)) {
    it("needs the engine binary", () => {
      expect.fail(
        `opsbench-engine binary not found at ${engine}: build it (cd engine && go build -o ../.tools/opsbench-engine/opsbench-engine ./cmd/opsbench-engine) or set OPSBENCH_ENGINE`,
      );
    });
    return;
  }

  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("has a case in cases.json for every script and a script for every case", () => {
    const scripts = readdirSync(scriptsDir).filter((f) => f.endsWith(".js"));
    expect(scripts.filter((s) => !manifest.cases[s])).toEqual([]);
    expect(cases.map(([s]) => s).filter((s) => !scripts.includes(s))).toEqual([]);
  });

  for (const [script, c] of cases) {
    const skip = isRealK6 && c.engineOnly !== undefined;
    const test = skip ? it.skip : it.concurrent;
    test(script, { timeout: 600_000 }, async () => {
      const caseName = script.replace(/\.js$/, "");
      const env = { PATH: process.env.PATH ?? "", BASE_URL: server.baseUrl(caseName), ...c.env };
      const run = await limit(() => runEngine(script, env));
      try {
        const problems = checkCase(script, c, run, server.hits(caseName));
        const context = `\n--- exit ${run.code}, ${run.seconds.toFixed(2)}s; stderr:\n${tail(run.stderr)}\n--- stdout:\n${tail(run.stdout, 500)}`;
        expect(problems, problems.length > 0 ? `${problems.join("\n")}${context}` : undefined).toEqual([]);
      } finally {
        rmSync(run.dir, { recursive: true, force: true });
      }
    });
  }
});
