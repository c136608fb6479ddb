// `opsbench import k6`: files written by a real k6 (the project's pinned binary) against
// a real benchapp, imported through the real command into the real database, and
// checked against counts and exact percentiles computed here from the raw file.
import { spawn, type ChildProcess } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { constants as zlibConstants, gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImportedRun } from "@opsbench/db";
import { loadEnv as loadRunnerEnv } from "../../../apps/runner/src/env";
import { openTestStack, runOpsbench } from "../../../tests/helpers";
import { freePort } from "../../../tests/ports";

const repo = path.resolve(import.meta.dirname, "../../..");
let stack: Awaited<ReturnType<typeof openTestStack>>;
let dir: string;
let app: ChildProcess | null = null;

// The k6 run's files, and what the raw JSON says, counted here independently.
const files = { json: "", csv: "", gz: "" };
let raw: { lines: string[]; durations: number[]; firstMs: number; lastMs: number; failures: number; loadPoints: number };

const opsbench = runOpsbench;

async function waitForHttp(url: string, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > until) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function run(cmd: string, args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: dir, env: { ...process.env, ...env } });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code: code ?? -1, output }));
  });
}

/** k6's percentile: sorted values, rank p*(n-1), linear interpolation. */
function exactPercentile(sorted: number[], p: number): number {
  const rank = p * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

const isDurationPoint = (line: string) => {
  try {
    const v = JSON.parse(line);
    return v.type === "Point" && v.metric === "http_req_duration";
  } catch {
    return false;
  }
};

function expectPercentilesWithin1Percent(latencyMs: Record<string, number>, durations: number[]) {
  const sorted = [...durations].sort((a, b) => a - b);
  const pairs: Array<[string, number, number]> = [
    ["p50", latencyMs.p50!, exactPercentile(sorted, 0.5)],
    ["p90", latencyMs.p90!, exactPercentile(sorted, 0.9)],
    ["p95", latencyMs.p95!, exactPercentile(sorted, 0.95)],
    ["p99", latencyMs.p99!, exactPercentile(sorted, 0.99)],
  ];
  for (const [p, ours, exact] of pairs) expect(Math.abs(ours - exact) / exact, `${p}: ${ours} vs exact ${exact}`).toBeLessThanOrEqual(0.01);
  expect(latencyMs.min).toBeCloseTo(sorted[0]!, 3);
  expect(latencyMs.max).toBeCloseTo(sorted[sorted.length - 1]!, 3);
}

beforeAll(async () => {
  stack = await openTestStack();
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-import-k6-"));
  const port = await freePort();
  app = spawn(process.execPath, [path.join(repo, "benchapps/cpu-loop/node-http/server.js")], {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: "ignore",
  });
  await waitForHttp(`http://127.0.0.1:${port}/healthz`);

  // Two request names and some 404s, so names, classes and failures all show. A 10 ms pause per iteration: a file of
  // some thousand requests says all the tests check, where back-to-back VUs wrote tens of thousands (and each test
  // reads the file again).
  await writeFile(
    path.join(dir, "script.js"),
    `import http from "k6/http";
import { sleep } from "k6";
export const options = { vus: 4, duration: "4s" };
export default function () {
  http.get(__ENV.BASE + "/?n=2000", { tags: { name: "taewa" } });
  if (__ITER % 5 === 0) http.get(__ENV.BASE + "/missing");
  sleep(0.01);
}
`,
  );
  files.json = path.join(dir, "out.json");
  files.csv = path.join(dir, "out.csv");
  const k6 = await run(loadRunnerEnv({}).OPSBENCH_ENGINE, ["run", "--no-color", "--quiet", "--out", `json=${files.json}`, "script.js"], {
    BASE: `http://127.0.0.1:${port}`,
    K6_NO_USAGE_REPORT: "true",
  });
  expect(k6.code, k6.output).toBe(0);
  // The same samples as k6's CSV output lays them out (k6's documented columns; the engine writes no CSV).
  await writeFile(files.csv, k6CsvOf(await readFile(files.json, "utf8")));
  // Detected by its first bytes, not its name.
  files.gz = path.join(dir, "compressed-results.data");
  await writeFile(files.gz, gzipSync(await readFile(files.json)));

  raw = { lines: [], durations: [], firstMs: Infinity, lastMs: -Infinity, failures: 0, loadPoints: 0 };
  for await (const line of createInterface({ input: createReadStream(files.json) })) {
    raw.lines.push(line);
    const v = JSON.parse(line);
    if (v.type !== "Point") continue;
    const t = Date.parse(v.data.time);
    raw.firstMs = Math.min(raw.firstMs, t);
    raw.lastMs = Math.max(raw.lastMs, t);
    if (v.metric === "http_req_duration") {
      raw.durations.push(v.data.value);
      if (v.data.tags.expected_response === "false") raw.failures++;
    }
    if (["vus", "data_sent", "iterations"].includes(v.metric)) raw.loadPoints++;
  }
}, 120_000);

afterAll(async () => {
  app?.kill();
  await stack.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("opsbench import k6", () => {
  it("imports k6 JSON: request count equals the file's http_req_duration points, percentiles within 1% of exact", async () => {
    expect(raw.durations.length).toBeGreaterThan(200);
    expect(raw.failures).toBeGreaterThan(0);
    const r = await opsbench("import", "k6", files.json, "--json");
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: "SUCCEEDED", source: "k6-import", file: files.json, skippedLines: 0, skippedExamples: [] });
    expect(out.requests).toBe(raw.durations.length);
    expect(out.failures).toBe(raw.failures);
    expectPercentilesWithin1Percent(out.latencyMs, raw.durations);

    const row = await stack.db.run.findUniqueOrThrow({ where: { id: out.id }, include: { results: true, load: true, events: true } });
    expect(row).toMatchObject({
      source: "k6-import",
      name: "out.json",
      status: "SUCCEEDED",
      targetId: null,
      workloadId: null,
      targetSpec: null,
      workloadSpec: null,
    });
    // Stored to the millisecond.
    expect(Math.abs(row.loadStartedAt!.getTime() - raw.firstMs)).toBeLessThanOrEqual(1);
    expect(Math.abs(row.loadFinishedAt!.getTime() - raw.lastMs)).toBeLessThanOrEqual(1);
    // req/s over k6's own clock, first to last sample, and the summary says which span that is.
    expect(out.durationSource).toBe("k6-samples");
    expect(out.durationSeconds).toBeCloseTo((raw.lastMs - raw.firstMs) / 1000, 3);
    expect(out.rps).toBeCloseTo(raw.durations.length / ((raw.lastMs - raw.firstMs) / 1000), 2);
    expect(row.results.reduce((a, c) => a + c.requests, 0)).toBe(raw.durations.length);
    expect([...new Set(row.results.map((c) => c.name))].sort()).toEqual([expect.stringMatching(/^http:.*\/missing$/), "taewa"]);
    expect(new Set(row.results.map((c) => c.class))).toEqual(new Set(["2xx", "4xx"]));
    expect(row.load.length).toBeGreaterThanOrEqual(4);
    expect(row.load.reduce((a, l) => a + l.iterations, 0)).toBeGreaterThan(0);
    expect(Math.max(...row.load.map((l) => l.vus))).toBe(4);
    expect(row.events.filter((e) => e.level === "warn")).toEqual([]);

    // The imported run reads like any other.
    const show = await opsbench("runs", "show", out.id, "--json");
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout).requests).toBe(raw.durations.length);
  });

  it("imports the same file gzip-compressed (told by its magic bytes) with the same result", async () => {
    const plain = JSON.parse((await opsbench("import", "k6", files.json, "--json")).stdout);
    const r = await opsbench("import", "k6", files.gz, "--json", "--name", "from gzip");
    expect(r.code, r.stderr).toBe(0);
    const gz = JSON.parse(r.stdout);
    expect(gz.requests).toBe(raw.durations.length);
    expect(gz.latencyMs).toEqual(plain.latencyMs);
    expect(gz.failures).toBe(plain.failures);
    expect((await stack.db.run.findUniqueOrThrow({ where: { id: gz.id } })).name).toBe("from gzip");
  });

  it("imports k6 CSV with the same counts, columns found by the header", async () => {
    const header = (await readFile(files.csv, "utf8")).split("\n", 1)[0]!;
    expect(header).toBe(
      "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata",
    );
    const r = await opsbench("import", "k6", files.csv, "--json");
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.requests).toBe(raw.durations.length);
    expect(out.failures).toBe(raw.failures);
    expect(out.skippedLines).toBe(0);
    expectPercentilesWithin1Percent(out.latencyMs, raw.durations);
    // CSV timestamps are whole seconds: the window runs from the first one to the end of the last second.
    expect(out.durationSource).toBe("k6-rows");
    const wholeSeconds = Math.floor(raw.lastMs / 1000) - Math.floor(raw.firstMs / 1000) + 1;
    expect(out.durationSeconds).toBe(wholeSeconds);
    const cells = await stack.db.resultSecond.findMany({ where: { runId: out.id } });
    expect(new Set(cells.map((c) => c.class))).toEqual(new Set(["2xx", "4xx"]));
  });

  it("counts corrupted lines and a truncated last line, imports the rest, and records a warning", async () => {
    const lines = [...raw.lines];
    const durationLines = lines.flatMap((l, i) => (isDurationPoint(l) ? [i] : []));
    const [a, b, c] = [durationLines[10]!, durationLines[20]!, durationLines[30]!];
    lines[a] = "{garbage";
    lines[b] = JSON.stringify({ type: "Point", metric: "http_req_duration", data: { time: "not a time", value: 1 } });
    lines[c] = lines[c]!.replace(/"value":[0-9.e-]+/, '"value":"fast"');
    const last = lines.length - 1;
    const lostAtEnd = isDurationPoint(lines[last]!) ? 1 : 0;
    lines[last] = lines[last]!.slice(0, 40);
    const file = path.join(dir, "damaged.json");
    await writeFile(file, lines.join("\n")); // no newline after the cut-off line

    const r = await opsbench("import", "k6", file, "--json");
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.requests).toBe(raw.durations.length - 3 - lostAtEnd);
    expect(out.skippedLines).toBe(4);
    expect(out.skippedExamples.map((e: { line: number }) => e.line)).toEqual([a + 1, b + 1, c + 1, last + 1]);
    expect(out.skippedExamples[0].reason).toMatch(/^not JSON/);
    const warn = await stack.db.runEvent.findFirstOrThrow({ where: { runId: out.id, level: "warn" } });
    expect(warn.message).toMatch(new RegExp(`^4 lines skipped \\(first: line ${a + 1}: not JSON`));

    const human = await opsbench("import", "k6", file);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`4 lines skipped (first: line ${a + 1}: not JSON`);
    expect(human.stdout).toMatch(/requests \d+, failed \d+/);
  });

  it("imports a gzip file cut off part-way up to the cut, and reports the cut", async () => {
    const gz = await readFile(files.gz);
    const cut = gz.subarray(0, Math.floor(gz.length * 0.6));
    const file = path.join(dir, "cut.json.gz");
    await writeFile(file, cut);
    // What can be decompressed, counted here: whole lines only.
    const text = gunzipSync(cut, { finishFlush: zlibConstants.Z_SYNC_FLUSH }).toString("utf8");
    const whole = text.slice(0, text.lastIndexOf("\n"));
    const expected = whole.split("\n").filter(isDurationPoint).length;

    const r = await opsbench("import", "k6", file, "--json");
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.requests).toBe(expected);
    expect(out.skippedLines).toBe(1);
    expect(out.skippedExamples[0].reason).toMatch(/compressed data ends early/);
  });

  it("refuses a missing file, a directory, a non-k6 file, an empty file and one without requests: exit 2, no run", async () => {
    const before = await stack.db.run.count();
    const empty = path.join(dir, "empty.json");
    await writeFile(empty, "");
    const noRequests = path.join(dir, "no-requests.json");
    await writeFile(
      noRequests,
      `${raw.lines.filter((l) => !l.includes('"metric":"http_req_duration"') || !l.includes('"type":"Point"')).join("\n")}\n`,
    );
    const subdir = path.join(dir, "a-directory");
    await mkdir(subdir);
    const cases: Array<[string, RegExp]> = [
      [path.join(dir, "nope.json"), /no such file: .*nope\.json/],
      [subdir, /a-directory is a directory/],
      [path.join(repo, "README.md"), /README\.md is not a k6 result file.*"# opsbench"/],
      [empty, /empty\.json is empty/],
      [noRequests, /no-requests\.json has no http_req_duration points/],
    ];
    for (const [file, message] of cases) {
      const r = await opsbench("import", "k6", file);
      expect(r.code, `${file}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe("");
    }
    expect((await opsbench("import", "k6")).code).toBe(2);
    expect((await opsbench("import", "k6", empty, "--bogus")).code).toBe(2);
    expect((await opsbench("import", "jmeter", empty)).code).toBe(2);
    expect(await stack.db.run.count()).toBe(before);
  });

  it("writes nothing when the write fails part-way (one transaction)", async () => {
    const before = { runs: await stack.db.run.count(), cells: await stack.db.resultSecond.count() };
    const t0 = Date.UTC(2026, 0, 1);
    const cell = (i: number, count: number) => ({
      ts: new Date(t0 + i * 1000),
      name: "r",
      class: "2xx",
      failures: 0,
      count,
      sum: count,
      min: 1,
      max: 1,
      buckets: [[0, count]] as Array<[number, number]>,
    });
    // 6,000 good cells (more than one insert batch), then one the database refuses (requests overflows an int).
    const cells = [...Array.from({ length: 6000 }, (_, i) => cell(i, 1)), cell(6000, 2 ** 31)];
    await expect(
      createImportedRun(stack.db, stack.scope.workspaceId, {
        name: "half-made",
        loadStartedAt: new Date(t0),
        loadFinishedAt: new Date(t0 + 6001_000),
        durationSource: "k6-rows",
        cells,
        load: [],
        events: [],
      }),
    ).rejects.toThrow(/out of range/);
    expect(await stack.db.run.count()).toBe(before.runs);
    expect(await stack.db.resultSecond.count()).toBe(before.cells);
  });
});

/** k6's CSV output (`--out csv`) of the samples in a k6 JSON output: its header, whole-second timestamps, tags by column. */
function k6CsvOf(json: string): string {
  const columns = [
    "check",
    "error",
    "error_code",
    "expected_response",
    "group",
    "method",
    "name",
    "proto",
    "scenario",
    "service",
    "status",
    "subproto",
    "tls_version",
    "url",
  ];
  const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  const rows = [`metric_name,timestamp,metric_value,${columns.join(",")},extra_tags,metadata`];
  for (const line of json.split("\n")) {
    if (!line) continue;
    const p = JSON.parse(line) as { type: string; metric: string; data: { time: string; value: number; tags?: Record<string, string> } };
    if (p.type !== "Point") continue;
    const tags = p.data.tags ?? {};
    const extra = Object.entries(tags)
      .filter(([k]) => !columns.includes(k))
      .map(([k, v]) => `${k}=${v}`)
      .join("&");
    const second = Math.floor(Date.parse(p.data.time) / 1000);
    rows.push([p.metric, String(second), String(p.data.value), ...columns.map((c) => quote(tags[c] ?? "")), quote(extra), ""].join(","));
  }
  return `${rows.join("\n")}\n`;
}
