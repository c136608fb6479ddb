// `opsbench ingest`: a stock k6's JSON output piped into the CLI feeds an external run. The k6 is a stand-in
// (tests/stand-ins/k6-json-replay, built here) replaying a recorded k6 JSON output, not a real k6; the command line is
// the one the server printed for it (`k6 run --out json=- ... | OPSBENCH_INGEST_TOKEN=... opsbench ingest --run ID`),
// run by sh as printed. The run ends with the recording's requests, per second, and its thresholds judged; bad input,
// a non-JSON stdin and a refused token end with clear errors and write nothing.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDb, type Db } from "@opsbench/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileServices } from "../../../tests/file-services";
import { startSignedInWeb } from "../../../tests/test-identity";
import { opsbenchCommand } from "../../../tests/helpers";

const { web, owner } = await startSignedInWeb();
const opsbench = opsbenchCommand();
const standIn = path.resolve(import.meta.dirname, "../../../tests/stand-ins/k6-json-replay");
const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-ingest-cli-"));
const bin = path.join(dir, "bin");
let db: Db;

beforeAll(() => {
  mkdirSync(bin);
  // `k6` is the stand-in; `opsbench` this checkout's CLI: the printed command line runs as it is.
  const built = spawnSync("go", ["build", "-o", path.join(bin, "k6"), "."], {
    cwd: standIn,
    encoding: "utf8",
    env: { ...process.env, CGO_ENABLED: "0" },
  });
  if (built.status !== 0) throw new Error(`go build of the stand-in failed: ${built.stderr}`);
  writeFileSync(path.join(bin, "opsbench"), `#!/bin/sh\nexec "${process.execPath}" "${opsbench}" "$@"\n`);
  chmodSync(path.join(bin, "opsbench"), 0o755);
  writeFileSync(path.join(dir, "script.js"), "export default function () {}\n");
  db = createDb(fileServices().databaseUrl, { max: 2 });
});
afterAll(async () => {
  await db?.$disconnect();
  rmSync(dir, { recursive: true, force: true });
});

interface Created {
  id: string;
  token: string;
  stockK6Commands: string[];
}

async function createRun(generators = 1): Promise<Created> {
  const res = await fetch(`${web}/api/v1/runs/external`, {
    method: "POST",
    headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
    // As the CLI sends it: the server's address as k6 reaches it.
    body: JSON.stringify({ name: "stock k6 piped", generators, ingestBaseUrl: web }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Created;
}

/** Runs a shell command line in the test's folder, with the stand-in and the CLI first on PATH; stdin from `input`. */
function sh(line: string, env: Record<string, string> = {}, input?: string) {
  const child = spawn("sh", ["-c", line], {
    cwd: dir,
    env: { PATH: `${bin}:${process.env.PATH}`, HOME: dir, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  child.stdin.end(input ?? "");
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code: code ?? -1, stdout, stderr })),
  );
}

/** The recording's requests per second (from its first sample), name and status class. */
function recordedSeconds(): Record<string, number> {
  const out: Record<string, number> = {};
  const points = readFileSync(path.join(standIn, "k6-output.json"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; metric: string; data: { time: string; tags: Record<string, string> | null } })
    .filter((p) => p.type === "Point");
  const second = (t: string) => Number(/:(\d\d)\./.exec(t)![1]);
  const first = second(points[0]!.data.time);
  for (const p of points.filter((p) => p.metric === "http_req_duration")) {
    const t = p.data.tags!;
    const cls = t.status === "0" ? "timeout" : `${t.status![0]}xx`;
    const key = `${second(p.data.time) - first} ${t.name} ${cls}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

async function storedSeconds(runId: string): Promise<Record<string, number>> {
  const rows = await db.resultSecond.findMany({ where: { runId } });
  const load = await db.loadSecond.findMany({ where: { runId } });
  const first = Math.min(...load.map((l) => l.ts.getTime()), ...rows.map((r) => r.ts.getTime())) / 1000;
  const out: Record<string, number> = {};
  for (const r of rows) {
    const key = `${r.ts.getTime() / 1000 - first} ${r.name} ${r.class}`;
    out[key] = (out[key] ?? 0) + r.requests;
  }
  return out;
}

describe("opsbench ingest: a stock k6's JSON output piped into the CLI", () => {
  it("feeds the run from the printed command line: the recording's requests per second, thresholds judged, final", async () => {
    const run = await createRun();
    const [line] = run.stockK6Commands;
    expect(line).toBe(
      `k6 run --out json=- script.js | OPSBENCH_INGEST_TOKEN=${run.token} opsbench ingest --run ${run.id} --url ${new URL(web).origin}`,
    );
    const started = Date.now();
    const done = await sh(line!);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(`sent 21 request(s) of 214 k6 JSON line(s) to run ${run.id} (segment 0:1); the run is final`);
    // The stand-in replays about 3 s: the CLI sent while it went and ended soon after.
    expect(Date.now() - started).toBeLessThan(15_000);
    const view = (await (await fetch(`${web}/api/v1/runs/${run.id}`, { headers: { authorization: `Bearer ${owner.token}` } })).json()) as {
      status: string;
      summary: { requests: number };
      thresholds: Array<{ metric: string; expression: string; ok: boolean }>;
    };
    expect(view.status).toBe("SUCCEEDED");
    expect(view.summary.requests).toBe(21);
    expect(view.thresholds).toEqual(
      expect.arrayContaining([
        { metric: "http_req_duration", expression: "p(95)<500", ok: true },
        { metric: "checks", expression: "rate>0.5", ok: true },
        { metric: "http_req_failed", expression: "rate<0.5", ok: true },
      ]),
    );
    expect(await storedSeconds(run.id)).toEqual(recordedSeconds());
    const checks = await db.metricSecond.findMany({ where: { runId: run.id, kind: "check" } });
    expect(checks.reduce((n, c) => n + c.passes, 0)).toBe(19);
    expect(checks.reduce((n, c) => n + c.count, 0)).toBe(21);
  });

  it("two generators with their segments make one run; a stdin that is not k6 JSON and a bad line are refused with 2", async () => {
    const run = await createRun(2);
    expect(run.stockK6Commands[1]).toContain("--execution-segment 1/2:1 --execution-segment-sequence 0,1/2,1 script.js |");
    expect(run.stockK6Commands[1]).toContain("--segment 1/2:1");
    const env = { OPSBENCH_INGEST_TOKEN: run.token };
    const ingest = `opsbench ingest --run ${run.id} --url ${web}`;

    const text = await sh(ingest, env, "hello\nthis is not k6\n");
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('stdin held no k6 JSON output (2 lines, first: line 1: "hello")');
    const recorded = readFileSync(path.join(standIn, "k6-output.json"), "utf8").split("\n");
    const broken = [...recorded.slice(0, 5), '{"type":"Point","metric":"vus","data":{"time":"soon","value":1}}', ...recorded.slice(5)];
    const bad = await sh(`${ingest} --segment 0:1/2`, env, broken.join("\n"));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('stdin line 6 is not k6\'s JSON output: not a k6 Point (data.time "soon" is not a time)');
    expect(await db.resultSecond.count({ where: { runId: run.id } })).toBe(0);
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("QUEUED");

    // Each half through its own pipe; the run is final after the second.
    const first = await sh(run.stockK6Commands[0]!);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("the run waits for its other generators");
    const second = await sh(run.stockK6Commands[1]!);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain("the run is final");
    const segments = await db.runSegment.findMany({ where: { runId: run.id }, orderBy: { index: "asc" } });
    expect(segments.map((s) => [s.index, s.count, s.status])).toEqual([
      [0, 2, "FINISHED"],
      [1, 2, "FINISHED"],
    ]);
  });

  it("stops at a refused token with 1 and says so; bad arguments are 2", async () => {
    const run = await createRun();
    const refused = await sh(`k6 run --out json=- script.js | opsbench ingest --run ${run.id} --url ${web}`, {
      OPSBENCH_INGEST_TOKEN: `${run.token}x`,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${new URL(web).origin} refused the ingest token (401): invalid or expired ingest token for this run`);
    expect(await db.resultSecond.count({ where: { runId: run.id } })).toBe(0);

    const noToken = await sh(`opsbench ingest --run ${run.id} --url ${web}`);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("ingest needs the run's ingest token: OPSBENCH_INGEST_TOKEN or --token-file FILE");
    writeFileSync(path.join(dir, "token"), `${run.token}\n`);
    const badSegment = await sh(`opsbench ingest --run ${run.id} --url ${web} --token-file token --segment half`);
    expect(badSegment.code).toBe(2);
    expect(badSegment.stderr).toContain('--segment must be k6\'s --execution-segment (e.g. 0:1/2 or 1/2:1), not "half"');
    // --token-file works where the variable is absent.
    const viaFile = await sh(`k6 run --out json=- script.js | opsbench ingest --run ${run.id} --url ${web} --token-file token`);
    expect(viaFile.code, viaFile.stderr).toBe(0);
    expect(viaFile.stderr).toContain("the run is final");
  });
});
