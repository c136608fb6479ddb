// `opsbench run --external` against a server with an API token (issue 24): the CLI creates the run over HTTP and
// prints one opsbench-engine command line per generator; two engine processes run them (execution segments 0:1/2 and 1/2:1,
// posting to the ingest endpoint), and the CLI exits as k6 would on the script's thresholds judged on the MERGED
// result. The thresholds are chosen so that each k6 alone judges its half the other way: 20 of 40 iterations.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { engineBuildInfo } from "../../../engine/build.mjs";
import { opsbenchCommand } from "../../../tests/helpers";
import { startSignedInWeb } from "../../../tests/test-identity";

const { web, owner } = await startSignedInWeb();
const k6Binary = (engineBuildInfo() as { binary: string }).binary;
const opsbench = opsbenchCommand();
let target: http.Server;

beforeAll(async () => {
  target = http.createServer((_req, res) => res.end("ok"));
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
});
afterAll(() => new Promise((r) => target.close(r)));

interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

/** Starts a process; `lines` sees its stderr as it comes; resolves when it exits. */
function start(command: string, args: string[], opts: { cwd: string; env: Record<string, string>; lines?: (text: string) => void }) {
  const child = spawn(command, args, { cwd: opts.cwd, env: { PATH: process.env.PATH ?? "", HOME: opts.cwd, ...opts.env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => {
    stderr += d;
    opts.lines?.(stderr);
  });
  return new Promise<Exit>((resolve) => child.on("exit", (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

/** A k6 project whose 40 iterations (one request each) split 20/20 over two segments. */
function writeScript(dir: string, thresholds: Record<string, string[]>) {
  writeFileSync(
    path.join(dir, "script.js"),
    `import http from "k6/http";
import { check } from "k6";
export const options = {
  scenarios: { all: { executor: "shared-iterations", vus: 2, iterations: 40, maxDuration: "60s" } },
  thresholds: ${JSON.stringify(thresholds)},
};
export default function () {
  check(http.get(__ENV.TARGET), { "status 200": (r) => r.status === 200 });
}
`,
  );
}

const k6Env = (dir: string) => ({
  TARGET: `http://127.0.0.1:${(target.address() as AddressInfo).port}/`,
  K6_NO_USAGE_REPORT: "true",
  HOME: dir,
});
const k6Count = (file: string) =>
  (JSON.parse(readFileSync(file, "utf8")) as { metrics: { http_reqs: { count: number } } }).metrics.http_reqs.count;

/**
 * `opsbench run --external --parallelism 2`, then each printed k6 command line run as printed (plus a summary export of
 * its own); also one k6 of the whole test, for the exit code k6 itself gives the same script.
 */
async function externalRun(name: string, thresholds: Record<string, string[]>) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `opsbench-external-${name}-`));
  writeScript(dir, thresholds);
  let commands: string[] = [];
  let printed: () => void = () => {};
  const allPrinted = new Promise<void>((resolve) => (printed = resolve));
  // DATABASE_URL points nowhere: everything goes through the server's API with the token.
  const cli = start(
    process.execPath,
    [opsbench, "run", "--external", "--parallelism", "2", "--name", name, "--json", "--junit", path.join(dir, "junit.xml")],
    {
      cwd: dir,
      env: { OPSBENCH_URL: web, OPSBENCH_TOKEN: owner.token, DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none" },
      lines: (text) => {
        // Whole lines only (the last piece may still be coming).
        commands = text
          .split("\n")
          .slice(0, -1)
          .flatMap((l) => (l.trim().startsWith("OPSBENCH_INGEST_TOKEN=") ? [l.trim()] : []));
        if (commands.length === 2) printed();
      },
    },
  );
  await Promise.race([allPrinted, cli.then((r) => Promise.reject(new Error(`the CLI ended first: ${r.code}\n${r.stderr}`)))]);
  const generators = commands.map((line, i) => {
    const [tokenAssignment, engine, ...args] = line.split(" ");
    expect(engine).toBe("opsbench-engine");
    const script = args.pop();
    expect(script).toBe("script.js");
    const summary = path.join(dir, `summary-${i}.json`);
    const token = tokenAssignment!.slice("OPSBENCH_INGEST_TOKEN=".length);
    return start(k6Binary, [...args, "--quiet", "--address", "", "--summary-export", summary, "script.js"], {
      cwd: dir,
      env: { ...k6Env(dir), OPSBENCH_INGEST_TOKEN: token },
    }).then((exit) => ({ exit, summary, args }));
  });
  const ran = await Promise.all(generators);
  const whole = await start(k6Binary, ["run", "--quiet", "--address", "", "script.js"], { cwd: dir, env: k6Env(dir) });
  return { cli: await cli, ran, whole, dir };
}

describe("opsbench run --external with two generators, through the API", () => {
  it("passes (0) when the merged result holds the thresholds, though each k6 alone failed its half", async () => {
    const { cli, ran, whole, dir } = await externalRun("merged-pass", {
      http_reqs: ["count==40"],
      checks: ["rate==1"],
      http_req_failed: ["rate<0.01"],
      "http_req_duration{expected_response:true}": ["p(95)<5000"],
      iterations: ["count==40"],
    });
    expect(ran.map((r) => r.args.slice(2).join(" "))).toEqual([
      expect.stringContaining("--execution-segment 0:1/2 --execution-segment-sequence 0,1/2,1"),
      expect.stringContaining("--execution-segment 1/2:1 --execution-segment-sequence 0,1/2,1"),
    ]);
    // Each k6 saw 20 requests, so its own count==40 failed; the whole test in one k6 passes, as the merged run does.
    expect(ran.map((r) => r.exit.code)).toEqual([99, 99]);
    expect(whole.code, whole.stderr).toBe(0);
    expect(cli.code, cli.stderr).toBe(whole.code);
    const summary = JSON.parse(cli.stdout) as { status: string; requests: number; k6ExitCode: number };
    expect(summary.status).toBe("SUCCEEDED");
    expect(summary.requests).toBe(k6Count(ran[0]!.summary) + k6Count(ran[1]!.summary));
    expect(summary.requests).toBe(40);
    expect(cli.stderr).toContain("threshold http_reqs: count==40 passed (merged result)");
    expect(readFileSync(path.join(dir, "junit.xml"), "utf8")).toContain("http_reqs: count==40");
  });

  it("fails (99) when the merged result crosses a threshold that each k6 alone held", async () => {
    const { cli, ran, whole } = await externalRun("merged-fail", { http_reqs: ["count<=30"], checks: ["rate>0.9"] });
    expect(ran.map((r) => r.exit.code)).toEqual([0, 0]);
    expect(whole.code).toBe(99);
    expect(cli.code, cli.stderr).toBe(whole.code);
    const summary = JSON.parse(cli.stdout) as { status: string; requests: number; k6ExitCode: number };
    expect(summary.status).toBe("SUCCEEDED");
    expect(summary.k6ExitCode).toBe(99);
    expect(summary.requests).toBe(k6Count(ran[0]!.summary) + k6Count(ran[1]!.summary));
    expect(cli.stderr).toContain("threshold http_reqs: count<=30 FAILED (merged result)");
    expect(cli.stderr).toContain("threshold checks: rate>0.9 passed (merged result)");
  });

  it("refuses bad input with 2 and prints the Kubernetes Job on stdout with --no-wait", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-external-usage-"));
    const env = { OPSBENCH_URL: web, OPSBENCH_TOKEN: owner.token };
    const bad = await start(process.execPath, [opsbench, "run", "--external", "--parallelism", "0"], { cwd: dir, env });
    expect(bad.code).toBe(2);
    const unknown = await start(process.execPath, [opsbench, "run", "--external", "--workload", "no-such-workload"], { cwd: dir, env });
    expect(unknown.code, unknown.stderr).toBe(2);
    const printed = await start(process.execPath, [opsbench, "run", "--external", "--no-wait", "--parallelism", "3"], { cwd: dir, env });
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain("kind: Job");
    expect(printed.stdout).toContain("completionMode: Indexed");
    expect(printed.stdout).toContain("parallelism: 3");
    expect(printed.stdout).toContain(`--out "opsbench=${web}/api/v1/runs/`);
    // The stock k6 lines go to stderr with the engine's.
    expect(printed.stderr).toMatch(/k6 run --out json=- --execution-segment 0:1\/3 .* \| OPSBENCH_INGEST_TOKEN=\S+ opsbench ingest --run /);
  });
});
