// Issue 10: the worker gives targets and scripts nothing they were not given.
// Real scripts through the real worker and k6 try to read the worker's secrets
// and reach what is not the target; a target tries an interpreter hook; every
// attempt fails and no secret comes back in a response, run error, event or check name.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localServiceSpec, type TargetInput, workloadSpec } from "@opsbench/core";
import { createScriptValidator, startRun, type ScriptValidator } from "@opsbench/jobs";
import { localService } from "@opsbench/providers";
import { openTestStack, waitForFinal, testDatabaseUrl, testRedisUrl, testSecretKey } from "../../../tests/helpers";
import { fileServices, runnerSocketOf } from "../../../tests/file-services";
import { loadEnv } from "../src/env";
import { nodeProgram } from "../../cli/src/processes";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let validator: ScriptValidator;
beforeAll(async () => {
  stack = await openTestStack({ worker: "process" });
  validator = createScriptValidator(testRedisUrl());
});
afterAll(async () => {
  await validator.close();
  await stack.close();
});

const databaseUrl = testDatabaseUrl();
const redisUrl = testRedisUrl();
const besideTheWorker = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src/env.ts");

/** The test stack's worker: the process whose environment holds the test database's URL. */
function workerPid(): number {
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${e}/environ`, "utf8").split("\0");
      if (env.includes(`DATABASE_URL=${databaseUrl}`) && readFileSync(`/proc/${e}/cmdline`, "utf8").includes(nodeProgram("worker").at(-1)!))
        return Number(e);
    } catch {
      /* gone, or a kernel thread */
    }
  }
  throw new Error("the test stack's worker is not running");
}

/** The test stack's k6 runner: the process started with this file's runner socket. */
function runnerPid(): number {
  const socket = `OPSBENCH_RUNNER_SOCKET=${runnerSocketOf(fileServices().name)}`;
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${e}/environ`, "utf8").split("\0");
      if (env.includes(socket) && readFileSync(`/proc/${e}/cmdline`, "utf8").includes(nodeProgram("runner").at(-1)!)) return Number(e);
    } catch {
      /* gone, or a kernel thread */
    }
  }
  throw new Error("the test stack's runner is not running");
}

/** What must never come back: the worker's settings, /etc/passwd, the worker's own code. */
const SECRETS = [databaseUrl, redisUrl, new URL(databaseUrl).pathname.slice(1), testSecretKey(), "root:x:0:0", "OPSBENCH_RUNNER_SOCKET"];
const expectNoSecret = (what: string, value: unknown) => {
  const text = JSON.stringify(value);
  for (const s of SECRETS) expect(text.includes(s), `${what} contains ${s}`).toBe(false);
};

const filesToSteal = () => [
  "/proc/1/environ",
  "/proc/self/environ",
  `/proc/${workerPid()}/environ`,
  `/proc/${runnerPid()}/environ`,
  "/etc/passwd",
  besideTheWorker,
];

describe("a user's k6 script cannot read the worker's files", () => {
  it("the files hold secrets for anyone outside the sandbox (so the attempts below mean something)", () => {
    expect(readFileSync(`/proc/${workerPid()}/environ`, "utf8")).toContain(databaseUrl);
    expect(readFileSync("/etc/passwd", "utf8")).toContain("root:x:0:0");
    expect(readFileSync(besideTheWorker, "utf8")).toContain("OPSBENCH_RUNNER_SOCKET");
    expect(readFileSync(`/proc/${workerPid()}/environ`, "utf8")).toContain(testSecretKey());
  });

  it("the runner, where k6 executes, holds no secret: neither the secret key nor the database's or Redis's address", () => {
    const env = readFileSync(`/proc/${runnerPid()}/environ`, "utf8");
    expect(env).toContain("OPSBENCH_RUNNER_SOCKET=");
    for (const secret of [testSecretKey(), databaseUrl, redisUrl, "DATABASE_URL", "REDIS_URL", "OPSBENCH_SECRET_KEY"])
      expect(env.includes(secret), secret).toBe(false);
  });

  it("validation (k6 inspect): open() of each file fails with the engine's message, and a script that would throw a file's content has nothing to throw", async () => {
    for (const file of filesToSteal()) {
      const direct = await validator.validateScript(`const c = open(${JSON.stringify(file)});\nexport default function () {}\n`);
      expect(direct.ok, file).toBe(false);
      // The engine refuses any path outside the script's folder before trying it; inside the sandbox nothing else exists.
      expect(!direct.ok && direct.message, file).toMatch(/outside the script's folder|no such file or directory/);
      expectNoSecret(`validation of ${file}`, direct);
    }
    const thrower = `for (const f of ${JSON.stringify(filesToSteal())}) {
  let c = null;
  try { c = open(f); } catch (e) { continue; }
  throw new Error("LEAK " + c);
}
export default function () {}
`;
    const result = await validator.validateScript(thrower);
    expectNoSecret("validation of the thrower", result);
    expect(result.ok).toBe(true);
  });

  it("a run: file reads and requests to the metadata service, Postgres, Redis and other host ports all fail; the check names carry no secret", async () => {
    const pg = new URL(databaseUrl).port;
    const redis = new URL(redisUrl).port;
    const source = `
import http from "k6/http";
import { check } from "k6";
export const options = { scenarios: { main: { executor: "shared-iterations", vus: 1, iterations: 5, maxDuration: "60s" } } };
const opened = ${JSON.stringify(filesToSteal())}.map((f) => {
  try { return "open " + f + ": READ " + open(f).slice(0, 300); } catch (e) { return "open " + f + ": failed"; }
});
export default function () {
  const base = __ENV.OPSBENCH_BASE_URL;
  const gateway = base.replace(/:\\d+$/, "");
  check(http.get(base + "/?input=hi", { tags: { name: "target" } }), { "target answers": (r) => r.status === 200 });
  if (__ITER > 0) return;
  for (const label of opened) check(null, { [label]: () => true });
  const probes = {
    metadata: "http://169.254.169.254/latest/meta-data/",
    "postgres on loopback": "http://127.0.0.1:${pg}/",
    "redis on loopback": "http://127.0.0.1:${redis}/",
    "postgres via the target's address": gateway + ":${pg}/",
    "redis via the target's address": gateway + ":${redis}/",
  };
  for (const [name, url] of Object.entries(probes)) {
    const r = http.get(url, { timeout: "2s", tags: { name: "probe" } });
    check(r, { ["net " + name + ": status " + r.status]: () => true });
  }
}
`;
    const target: TargetInput = {
      name: "escape-echo",
      kind: "local-service",
      spec: { app: "echo/node", replicas: 1, env: {}, startTimeoutMs: 10_000 },
    };
    await stack.scope.targets.put(target);
    await stack.scope.workloads.put({ name: "escape-script", spec: workloadSpec.parse({ kind: "script", source }) });
    const run = await startRun(stack.scope, stack.queue, { targetName: "escape-echo", workloadName: "escape-script" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");

    const names = view.checks.map((c) => c.name).sort();
    expect(names.filter((n) => n.startsWith("open "))).toEqual(
      filesToSteal()
        .map((f) => `open ${f}: failed`)
        .sort(),
    );
    const net = names.filter((n) => n.startsWith("net "));
    expect(net).toHaveLength(5);
    for (const n of net) expect(n, n).toMatch(/: status 0$/);
    expect(view.checks.find((c) => c.name === "target answers")).toMatchObject({ passes: 5, fails: 0 });
    expect(view.flags.map((f) => f.code)).not.toContain("unsandboxed-load");

    const row = await stack.db.run.findUniqueOrThrow({ where: { id: run.id }, include: { events: true, steps: true } });
    expectNoSecret("run view", view);
    expectNoSecret("run row (error, k6 summary, events, steps)", { ...row, workloadSpec: null });
  });
});

describe("a target gets a minimal environment and no interpreter hooks", () => {
  it("benchapp processes see PATH, HOME, PORT, HOST, their run id and the target's env: none of the worker's settings", async () => {
    const { OPSBENCH_BENCHAPPS_DIR } = loadEnv({});
    const ctx = {
      runId: randomUUID(),
      signal: new AbortController().signal,
      log: () => {},
      benchappsDir: OPSBENCH_BENCHAPPS_DIR,
      saveState: async () => {},
    };
    const dep = await localService.deploy(localServiceSpec.parse({ app: "echo/node", replicas: 1, env: { ECHO_MARKER: "1" } }), ctx);
    try {
      const environ = (pid: number) =>
        Object.fromEntries(
          readFileSync(`/proc/${pid}/environ`, "utf8")
            .split("\0")
            .filter(Boolean)
            .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
        );
      const replica = environ(dep.state.replicas[0]!.pids[0]!);
      expect(Object.keys(replica).sort()).toEqual(["ECHO_MARKER", "HOME", "HOST", "OPSBENCH_RUN_ID", "PATH", "PORT"]);
      expect(replica.OPSBENCH_RUN_ID).toBe(ctx.runId);
      // The load balancer too (this test process itself has TEST_DATABASE_URL and more).
      expect(Object.keys(environ(dep.state.lb!.pid)).sort()).toEqual(["HOME", "OPSBENCH_RUN_ID", "PATH"]);
    } finally {
      await localService.teardown(dep, ctx);
    }
  });

  it("a target stored with NODE_OPTIONS and LD_PRELOAD (past the API) is refused by the worker before anything starts", async () => {
    const proof = `/tmp/opsbench-hook-${randomUUID()}`;
    const hook = `--import=data:text/javascript,import{writeFileSync}from"node:fs";writeFileSync(${JSON.stringify(proof)},"ran")`;
    // Written as a raw row: the API and the store's own schema refuse it (tested in core), so a row like it
    // could only come from an older version or by hand.
    await stack.db.target.create({
      data: {
        workspaceId: stack.scope.workspaceId,
        name: "hooked",
        kind: "local-service",
        spec: { app: "echo/node", replicas: 1, env: { NODE_OPTIONS: hook, LD_PRELOAD: "/tmp/evil.so" }, startTimeoutMs: 10_000 },
      },
    });
    await stack.scope.workloads.put({
      name: "hooked-load",
      spec: workloadSpec.parse({ kind: "constant-vus", vus: 1, duration: "1s", requests: [{ name: "x", path: "/" }] }),
    });
    const run = await startRun(stack.scope, stack.queue, { targetName: "hooked", workloadName: "hooked-load" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.status).toBe("FAILED");
    expect(view.error).toMatch(/env\.NODE_OPTIONS: NODE_OPTIONS is refused: it lets a runtime or the loader run code/);
    expect(view.error).toMatch(/env\.LD_PRELOAD: LD_PRELOAD is refused/);
    expect(existsSync(proof)).toBe(false);
    expectNoSecret("hooked run", view);
  });
});
