// Issue 20, "limits can be lied to": a script can tell `k6 inspect` from `k6 run` (here by the path in an error
// message; a random choice or the clock would do too), so what inspect says is not what runs. The runner checks what
// k6 run itself plans (opsbench's output writes it before any VU exists) against the run's limits and inspect's answer
// and stops k6 within seconds; k6 and k6 inspect run under memory limits (each hit with a message naming the limit),
// and inspect's output is capped.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workloadSpec } from "@opsbench/core";
import { runStore } from "@opsbench/db";
import { createScriptValidator, type ScriptValidator, startRun } from "@opsbench/jobs";
import { isAlive, openTestStack, testRedisUrl, waitForFinal } from "../helpers";
import { freePort, waitForPort } from "../ports";

const run = promisify(execFile);

let stack: Awaited<ReturnType<typeof openTestStack>>;
let validator: ScriptValidator;
let standIn: ChildProcess;
let standInUrl: string;

beforeAll(async () => {
  stack = await openTestStack();
  validator = createScriptValidator(testRedisUrl());
  const port = await freePort();
  standIn = spawn(process.execPath, [path.resolve(import.meta.dirname, "../../benchapps/echo/node/server.js")], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST: "127.0.0.1" },
    stdio: "ignore",
  });
  await waitForPort(port);
  standInUrl = `http://127.0.0.1:${port}`;
  await stack.scope.targets.put({ name: "stand-in", kind: "endpoint", spec: { url: standInUrl } });
});
afterAll(async () => {
  standIn?.kill("SIGKILL");
  await validator?.close();
  await stack?.close();
});

// inspect runs the script in a folder of its own (opsbench-validate-...); k6 run in the run's folder.
const LIAR = `
import http from "k6/http";
let told = "";
try { open("./nothing-here.txt"); } catch (e) { told = String(e); }
const inspected = told.includes("opsbench-validate");
export const options = { vus: inspected ? 1 : 500, duration: "60s" };
export default function () { http.get(__ENV.OPSBENCH_BASE_URL + "/"); }
`;

async function runScript(name: string, source: string) {
  await stack.scope.workloads.put({ name, spec: workloadSpec.parse({ kind: "script", source }) });
  const run = await startRun(stack.scope, stack.queue, { targetName: "stand-in", workloadName: name });
  return { id: run.id, view: await waitForFinal(stack.db, run.id) };
}

describe("limits enforced on what k6 actually does", () => {
  it("a script that reports 1 VU to inspect and starts 500 is stopped within 10 s and flagged", async () => {
    // What the API and the worker see: 1 VU.
    const checked = await validator.validateScript(LIAR);
    expect(checked).toMatchObject({ ok: true, maxVUs: 1 });

    const { view } = await runScript("liar", LIAR);
    expect(view.status).toBe("FAILED");
    expect(view.error).toContain("k6 run planned 500 VUs where k6 inspect of the same script said 1");
    expect(view.flags.map((f) => f.code)).toContain("over-limits");
    const load = view.steps.find((s) => s.name === "LOAD");
    expect(load?.durationMs ?? Number.POSITIVE_INFINITY).toBeLessThan(10_000);
  });

  it("a script within its limits whose plan matches inspect runs as before", async () => {
    const { view } = await runScript(
      "honest",
      `import http from "k6/http";\nexport const options = { vus: 2, iterations: 4 };\nexport default function () { http.get(__ENV.OPSBENCH_BASE_URL + "/"); }\n`,
    );
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.flags.map((f) => f.code)).not.toContain("over-limits");
  });

  it("a script that allocates without bound is stopped by k6 inspect's memory limit, with the message", async () => {
    const hog = `const hoard = [];\nfor (let i = 0; ; i++) hoard.push("x".repeat(50000000) + i);\nexport default function () {}\n`;
    const checked = await validator.validateScript(hog);
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.message).toMatch(/^k6 inspect was stopped: k6 ran out of memory: it may use \d+ MB of address space/);
    // A run of it fails the same way, before k6 run starts.
    const { view } = await runScript("hog", hog);
    expect(view.status).toBe("FAILED");
    expect(view.error).toContain("k6 ran out of memory");
  });

  it("a script that allocates without bound only when run (not in inspect) is stopped by k6 run's memory limit, with the message, and nothing is left running", async () => {
    // The init code allocates nothing, so inspect passes; each iteration allocates without end.
    const hog = `export const options = { vus: 1, iterations: 1 };\nexport default function () {\n  const hoard = [];\n  for (let i = 0; ; i++) hoard.push("x".repeat(50000000) + i);\n}\n`;
    expect(await validator.validateScript(hog)).toMatchObject({ ok: true });
    const { id, view } = await runScript("run-hog", hog);
    expect(view.status).toBe("FAILED");
    expect(view.error).toMatch(
      /k6 ran out of memory: it may use \d+ MB of address space \(OPSBENCH_K6_MEMORY_MB\); the script allocates more/,
    );
    // k6 run itself was started (the LOAD step, its process recorded), and is gone with its network.
    const load = await runStore(stack.db, id).step("LOAD");
    expect(load?.status).toBe("FAILED");
    const owned = (load?.detail as { k6?: { pid: number | null; network: { ns: string } | null } } | null)?.k6;
    expect(owned?.pid).toBeGreaterThan(0);
    expect(isAlive(owned!.pid!)).toBe(false);
    if (owned?.network) expect((await run("ip", ["netns", "list"])).stdout).not.toContain(owned.network.ns);
  });

  it("k6 inspect's output beyond 1 MiB is refused with the message", async () => {
    const checked = await validator.validateScript(
      `export const options = { tags: { big: "x".repeat(2000000) } };\nexport default function () {}\n`,
    );
    expect(checked).toEqual({ ok: false, message: "k6 inspect's output exceeded 1 MiB: the script's options are too large" });
  });
});
