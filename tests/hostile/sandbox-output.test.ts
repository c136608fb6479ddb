// Issue: what a script or a generator writes was bounded by count, never by size. A handleSummary() returning 1 GiB
// grew the run's folder by 512 MiB and memory-backed files (the sandbox's /tmp and /dev: host RAM, outside k6's
// memory limit) by 1 GiB, and the run SUCCEEDED with a warning; 100 check and request names of 50 KB each for 10 s
// grew the results tables by tens of MB; the ingest endpoint stored a 900,000-character name dated 2058 under
// segment 999. Now handleSummary()'s files are capped by the engine (nothing written beyond, the run flagged),
// /tmp is a small tmpfs and /dev read-only, names longer than 256 characters are folded into "other" by the engine
// and the worker, and ingest refuses such a batch whole, naming the field.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_SERIES_NAME_LENGTH, workloadSpec } from "@opsbench/core";
import { createExternalRun, defaultWorkspaceId } from "@opsbench/db";
import { startRun } from "@opsbench/jobs";
import { bwrapArgs, SANDBOX_TMP_BYTES } from "../../apps/runner/src/k6-sandbox";
import { openTestStack, testWebUrl, waitForFinal } from "../helpers";
import { freePort, waitForPort } from "../ports";

const repoRoot = path.resolve(import.meta.dirname, "../..");
/** Where the file's runner gives each k6 its folder (OPSBENCH_WORK_DIR's default). */
const runsDir = path.join(repoRoot, ".data/runs");

let stack: Awaited<ReturnType<typeof openTestStack>>;
let standIn: ChildProcess;

beforeAll(async () => {
  stack = await openTestStack();
  const port = await freePort();
  standIn = spawn(process.execPath, [path.resolve(import.meta.dirname, "../../benchapps/echo/node/server.js")], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST: "127.0.0.1" },
    stdio: "ignore",
  });
  await waitForPort(port);
  await stack.scope.targets.put({ name: "stand-in", kind: "endpoint", spec: { url: `http://127.0.0.1:${port}` } });
});
afterAll(async () => {
  standIn?.kill("SIGKILL");
  await stack?.close();
});

async function startScript(name: string, source: string) {
  await stack.scope.workloads.put({ name, spec: workloadSpec.parse({ kind: "script", source }) });
  return (await startRun(stack.scope, stack.queue, { targetName: "stand-in", workloadName: name })).id;
}

/** Bytes of the regular files under dir (0 once it is gone). */
function folderBytes(dir: string): number {
  let total = 0;
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      try {
        const st = lstatSync(path.join(d, n));
        if (st.isDirectory()) walk(path.join(d, n));
        else if (st.isFile()) total += st.size;
      } catch {
        // removed while walking
      }
    }
  };
  walk(dir);
  return total;
}

/** The machine's memory-backed files (tmpfs and shared memory: "Shmem" of /proc/meminfo), bytes. */
const shmemBytes = () => Number(/^Shmem:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0) * 1024;

/** Samples the run's folder and the machine's memory-backed files every 50 ms until the run is final: their peaks. */
async function peaksWhile(runId: string) {
  const shmemBefore = shmemBytes();
  let folder = 0;
  let shmem = 0;
  const dir = path.join(runsDir, runId);
  let done = false;
  const sampling = (async () => {
    while (!done) {
      folder = Math.max(folder, folderBytes(dir));
      shmem = Math.max(shmem, shmemBytes() - shmemBefore);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const view = await waitForFinal(stack.db, runId);
  done = true;
  await sampling;
  return { view, folderPeak: folder, shmemPeak: shmem, folderAfter: existsSync(dir) };
}

const MiB = 1024 * 1024;

describe("handleSummary() and the sandbox's memory-backed folders are bounded", () => {
  it("a handleSummary() returning 1 GiB of files (in its folder, /tmp and /dev) writes none of it, and the run is flagged with the bound", async () => {
    // One 256 MiB string, four times: 512 MiB into the run's folder, 512 MiB into /tmp and /dev.
    const id = await startScript(
      "huge-summary",
      `export const options = { vus: 1, iterations: 1 };
export default function () {}
export function handleSummary() {
  const s = "x".repeat(256 * 1024 * 1024);
  return { "big-0.bin": s, "big-1.bin": s, "/tmp/big.bin": s, "/dev/big.bin": s };
}
`,
    );
    const { view, folderPeak, shmemPeak, folderAfter } = await peaksWhile(id);
    console.log(
      `handleSummary of 1 GiB: run folder peak ${(folderPeak / MiB).toFixed(2)} MiB, memory-backed files peak +${(shmemPeak / MiB).toFixed(1)} MiB`,
    );
    // The engine's cap is 2 MiB in all; the script's own files are a few hundred bytes.
    expect(folderPeak).toBeLessThan(2 * MiB + 64 * 1024);
    // /tmp is a 64 MiB tmpfs at most and /dev read-only; the margin is the machine's own churn (other tests).
    expect(shmemPeak).toBeLessThan(96 * MiB);
    expect(folderAfter).toBe(false);
    expect(view.status).toBe("FAILED");
    expect(view.error).toMatch(
      /handleSummary\(\) output over the limit: 4 files, 1073741824 bytes in all \(at most 20 files, 1 MiB each, 2 MiB in all\); nothing of it was written/,
    );
    expect(view.flags.map((f) => f.code)).toContain("over-limits");
    expect(await stack.db.runArtifact.count({ where: { runId: id } })).toBe(0);
  });

  it("a handleSummary() within the caps is kept as before", async () => {
    const id = await startScript(
      "small-summary",
      `export const options = { vus: 1, iterations: 1 };
export default function () {}
export function handleSummary() { return { "summary.txt": "ok", stdout: "done" }; }
`,
    );
    const view = await waitForFinal(stack.db, id);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.flags.map((f) => f.code)).not.toContain("over-limits");
    const kept = await stack.db.runArtifact.findMany({ where: { runId: id } });
    expect(kept.map((a) => [a.name, Buffer.from(a.content).toString()])).toEqual([["summary.txt", "ok"]]);
  });
});

describe("k6's sandbox has no memory-backed folder without a bound", () => {
  // A stand-in for a stock k6, whose handleSummary() the engine's cap does not bind: a static program that writes
  // 200 MiB where it is told, started exactly as the runner starts k6 (bwrapArgs), and says how much it wrote.
  let writerDir = "";
  let writer = "";
  let runDir = "";
  beforeAll(() => {
    writerDir = mkdtempSync(path.join(os.tmpdir(), "opsbench-sandbox-writer-"));
    writer = path.join(writerDir, "sandbox-writer");
    runDir = path.join(writerDir, "run");
    mkdirSync(runDir);
    const built = spawnSync("go", ["build", "-o", writer, "."], {
      cwd: path.join(repoRoot, "tests/stand-ins/sandbox-writer"),
      encoding: "utf8",
      env: { ...process.env, CGO_ENABLED: "0" },
    });
    if (built.status !== 0) throw new Error(`go build of the stand-in failed: ${built.stderr}`);
  });
  afterAll(() => {
    if (writerDir) rmSync(writerDir, { recursive: true, force: true });
  });

  const writeInSandbox = (file: string) => {
    const args = bwrapArgs({ binary: writer, workDir: runDir, network: "none" });
    const r = spawnSync(args[0]!, [...args.slice(1), writer, file, "200"], { encoding: "utf8", env: {} });
    const mib = Number(/^wrote (\d+) MiB/.exec(r.stdout)?.[1]);
    if (Number.isNaN(mib)) throw new Error(`the stand-in did not run: ${r.stdout}${r.stderr}`);
    return { mib, said: r.stdout.trim() };
  };

  it("/tmp takes at most 64 MiB; /dev, /dev/shm and the sandbox's root take nothing; the run's folder is still written", () => {
    const tmp = writeInSandbox("/tmp/big.bin");
    expect(tmp.mib).toBe(SANDBOX_TMP_BYTES / MiB);
    expect(tmp.said).toContain("no space left on device");
    for (const file of ["/dev/big.bin", "/dev/shm/big.bin", "/big.bin", "/etc/big.bin"]) {
      const w = writeInSandbox(file);
      expect(w, file).toMatchObject({ mib: 0 });
      expect(w.said, file).toContain("read-only file system");
    }
    // The run's folder is on disk and is where k6 writes (bounded by the engine, and by collectArtifacts after).
    expect(writeInSandbox(path.join(runDir, "ok.bin")).mib).toBe(200);
  });
});

describe("names of series are cut to a documented length", () => {
  it("100 check and request names of 50 KB each for 10 s: every stored name is at most 256 characters, and the results stay small", async () => {
    // Names that do not compress (a PRNG's letters), the same 100 on every VU: windows of one 50,100-letter string,
    // each shifted by one letter (made once, so the VUs' init stays short on a busy machine).
    const id = await startScript(
      "long-names",
      `import http from "k6/http";
import { check } from "k6";
export const options = { vus: 2, duration: "10s" };
let seed = 7;
const letter = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return String.fromCharCode(97 + (seed % 26)); };
const letters = [];
for (let j = 0; j < 50100; j++) letters.push(letter());
const base = letters.join("");
const names = [];
for (let i = 0; i < 100; i++) names.push(String(i).padStart(3, "0") + base.slice(i, i + 50000));
export default function () {
  const name = names[Math.floor(Math.random() * names.length)];
  const res = http.get(__ENV.OPSBENCH_BASE_URL + "/", { tags: { name } });
  check(res, { [name]: (r) => r.status === 200 });
}
`,
    );
    const view = await waitForFinal(stack.db, id);
    expect(view.status, view.error ?? "").toBe("SUCCEEDED");
    const longest = await stack.db.$queryRaw<Array<{ http: number | null; metric: number | null; bytes: bigint }>>`
      SELECT (SELECT max(length(name)) FROM result_seconds WHERE run_id = ${id}::uuid) AS http,
             (SELECT max(length(name)) FROM metric_seconds WHERE run_id = ${id}::uuid) AS metric,
             (SELECT coalesce(sum(pg_column_size(r.*)), 0) FROM result_seconds r WHERE run_id = ${id}::uuid)
             + (SELECT coalesce(sum(pg_column_size(m.*)), 0) FROM metric_seconds m WHERE run_id = ${id}::uuid) AS bytes`;
    const row = longest[0]!;
    console.log(`50 KB names for 10 s: longest stored name ${row.http} (http), ${row.metric} (checks); rows ${Number(row.bytes)} bytes`);
    expect(row.http).toBeGreaterThan(0);
    expect(row.http).toBeLessThanOrEqual(MAX_SERIES_NAME_LENGTH);
    expect(row.metric).toBeLessThanOrEqual(MAX_SERIES_NAME_LENGTH);
    // Before: 100 names x 50 KB x ~12 s x 2 tables. Now a few "other" rows a second.
    expect(Number(row.bytes)).toBeLessThan(2 * MiB);
  });
});

describe("the ingest endpoint refuses what no generator of the run could have measured", () => {
  const line = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      t: "http",
      s: Math.floor(Date.now() / 1000),
      name: "home",
      class: "2xx",
      n: 1,
      fail: 0,
      sum: 5,
      min: 5,
      max: 5,
      b: "",
      ...over,
    });

  it("a 900,000-character name, a second in 2058 and segment 999 of a one-generator run: 422 naming the field, nothing stored", async () => {
    const workspaceId = await defaultWorkspaceId(stack.db);
    const run = await createExternalRun(stack.db, workspaceId, { name: "hostile ingest" });
    const post = (body: string, segment = "0:1") =>
      fetch(`${testWebUrl()}/api/v1/runs/${run.id}/ingest`, {
        method: "POST",
        headers: { authorization: `Bearer ${run.token}`, "content-type": "application/x-ndjson", "x-opsbench-segment": segment },
        body: `${body}\n`,
      });
    const refused = async (res: Response) => ({
      status: res.status,
      message: ((await res.json()) as { error: { message: string } }).error.message,
    });

    // A good line first in each batch: a refused batch stores none of it.
    const longName = await refused(await post(`${line()}\n${line({ name: "x".repeat(900_000) })}`));
    expect(longName.status).toBe(422);
    expect(longName.message).toContain("line 2");
    expect(longName.message).toContain(`name is 900000 characters, at most ${MAX_SERIES_NAME_LENGTH}`);

    const future = Math.floor(Date.UTC(2058, 0, 1) / 1000);
    const dated = await refused(await post(`${line()}\n${line({ s: future })}`));
    expect(dated.status).toBe(422);
    expect(dated.message).toContain("line 2");
    expect(dated.message).toContain(`s ${future} (2058-01-01T00:00:00.000Z) is outside the run's window`);

    const segment = await refused(await post(line(), "999/1000:1"));
    expect(segment.status).toBe(422);
    expect(segment.message).toContain('X-Opsbench-Segment "999/1000:1"');
    expect(segment.message).toContain("segment 999 of 1000; the run was made for 1 generator");

    expect(await stack.db.resultSecond.count({ where: { runId: run.id } })).toBe(0);
    expect(await stack.db.runSegment.count({ where: { runId: run.id } })).toBe(0);
    const row = await stack.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row.status).toBe("QUEUED");
    expect(row.generators).toBe(1);

    // The same batch without the bad line goes in.
    expect((await post(line())).status).toBe(200);
    expect(await stack.db.resultSecond.count({ where: { runId: run.id } })).toBe(1);

    // The workspace's maxHttpSeries binds the run, whatever its generators send: with 3, "home", "a" and "b" go in,
    // and a batch that would add "c" and "d" is refused whole.
    const own = await stack.scope.limits.own();
    await stack.scope.limits.set({ maxHttpSeries: 3 });
    try {
      expect((await post(`${line({ name: "a" })}\n${line({ name: "b" })}`)).status).toBe(200);
      const over = await refused(await post(`${line({ name: "a" })}\n${line({ name: "c" })}\n${line({ name: "d" })}`));
      expect(over.status).toBe(422);
      expect(over.message).toContain("the run would have 5 request names, over the workspace's limit maxHttpSeries (3)");
    } finally {
      await stack.scope.limits.set({ maxHttpSeries: own.maxHttpSeries });
    }
    expect(await stack.db.resultSecond.count({ where: { runId: run.id } })).toBe(3);
  });
});
