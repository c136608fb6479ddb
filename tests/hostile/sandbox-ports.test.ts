// Issue 20, "the sandbox opens whatever loopback port a target names": a target (an `endpoint` on
// http://127.0.0.1:<port>) aimed at one of opsbench's own services, Postgres, Redis or the web app (which also takes
// k6 results at its ingest endpoint), is refused before anything starts, whatever the allowlist says; and a loopback
// endpoint opsbench did not start is refused unless the admin allows that address and port.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workloadSpec } from "@opsbench/core";
import { startRun } from "@opsbench/jobs";
import { RunnerClient } from "../../apps/worker/src/runner-client";
import { fileServices, runnerSocketOf, useWorker } from "../file-services";
import { openTestStack, testDatabaseUrl, testRedisUrl, testWebUrl, waitForFinal } from "../helpers";
import { freePort, waitForPort } from "../ports";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let standIn: ChildProcess;
let standInPort: number;

const SCRIPT = `
import http from "k6/http";
export const options = { vus: 1, iterations: 3 };
export default function () { http.get(__ENV.OPSBENCH_BASE_URL + "/"); }
`;

beforeAll(async () => {
  stack = await openTestStack();
  standInPort = await freePort();
  standIn = spawn(process.execPath, [path.resolve(import.meta.dirname, "../../benchapps/echo/node/server.js")], {
    env: { PATH: process.env.PATH ?? "", PORT: String(standInPort), HOST: "127.0.0.1" },
    stdio: "ignore",
  });
  await waitForPort(standInPort);
  await stack.scope.workloads.put({ name: "three-gets", spec: workloadSpec.parse({ kind: "script", source: SCRIPT }) });
});
afterAll(async () => {
  standIn?.kill("SIGKILL");
  await stack?.close();
});

async function runAgainst(name: string, url: string) {
  await stack.scope.targets.put({ name, kind: "endpoint", spec: { url } });
  const run = await startRun(stack.scope, stack.queue, { targetName: name, workloadName: "three-gets" });
  return waitForFinal(stack.db, run.id);
}

describe("the load sandbox never opens opsbench's own ports", () => {
  const services = () => [
    { what: "Postgres", port: Number(new URL(testDatabaseUrl()).port) },
    { what: "Redis", port: Number(new URL(testRedisUrl()).port) },
    { what: "the web app", port: Number(new URL(testWebUrl()).port) },
  ];

  it("an endpoint target on the Postgres, Redis or web app port is refused before anything starts, naming the port", async () => {
    for (const { what, port } of services()) {
      // Even with every loopback port allowlisted (the tests' default), and with localhost instead of 127.0.0.1.
      for (const host of ["127.0.0.1", "localhost"]) {
        const view = await runAgainst(`own-${port}-${host}`, `http://${host}:${port}`);
        expect(view.status, `${what} via ${host}`).toBe("FAILED");
        expect(view.error).toContain(`the target's port ${port} is ${what}'s`);
        // Refused before deploy: no step past the limits check, so no k6 (no LOAD step) and no results.
        expect(view.steps.map((s) => s.name)).not.toContain("LOAD");
        expect(view.steps.map((s) => s.name)).not.toContain("PROVISION");
        expect(view.summary).toBeNull();
      }
    }
  });

  it("the runner refuses too, before k6 starts, when asked directly for a target on a blocked port", async () => {
    const runner = new RunnerClient(runnerSocketOf(fileServices().name));
    const pg = Number(new URL(testDatabaseUrl()).port);
    let owned = false;
    await expect(
      runner.runK6(
        {
          key: `blocked-${Date.now()}`,
          script: SCRIPT,
          env: { OPSBENCH_BASE_URL: `http://127.0.0.2:${pg}` },
          blockPorts: [{ host: "127.0.0.1", port: pg, service: "Postgres" }],
        },
        { signal: new AbortController().signal, onLine: () => {}, onOwned: () => (owned = true) },
      ),
    ).rejects.toThrow(`the target's port ${pg} is Postgres's`);
    // No network, no process: nothing was made.
    expect(owned).toBe(false);
  });
});

describe("loopback endpoints opsbench did not start", () => {
  it("are refused unless the admin allows that address and port, and pass once allowlisted as address:port", async () => {
    await useWorker({ env: { OPSBENCH_LOAD_ALLOWED_HOSTS: "" } });
    const refused = await runAgainst("stand-in", `http://127.0.0.1:${standInPort}`);
    expect(refused.status).toBe("FAILED");
    expect(refused.error).toContain(`load to 127.0.0.1:${standInPort} refused: opsbench did not start this endpoint`);
    expect(refused.error).toContain(`allow it as "127.0.0.1:${standInPort}"`);
    expect(refused.steps.map((s) => s.name)).not.toContain("LOAD");

    // Another port of the same address on the list does not let this one through.
    await useWorker({ env: { OPSBENCH_LOAD_ALLOWED_HOSTS: `127.0.0.1:${standInPort + 1}` } });
    expect((await runAgainst("stand-in", `http://127.0.0.1:${standInPort}`)).status).toBe("FAILED");

    await useWorker({ env: { OPSBENCH_LOAD_ALLOWED_HOSTS: `127.0.0.1:${standInPort}` } });
    const allowed = await runAgainst("stand-in", `http://127.0.0.1:${standInPort}`);
    expect(allowed.error).toBeNull();
    expect(allowed.status).toBe("SUCCEEDED");
    expect(allowed.summary?.requests).toBe(3);
  });

  it("the admin's allowlist cannot open opsbench's own ports either", async () => {
    const redis = Number(new URL(testRedisUrl()).port);
    await useWorker({ env: { OPSBENCH_LOAD_ALLOWED_HOSTS: `127.0.0.1:${redis}` } });
    const view = await runAgainst("redis-allowed", `http://127.0.0.1:${redis}`);
    expect(view.status).toBe("FAILED");
    expect(view.error).toContain(`the target's port ${redis} is Redis's`);
  });
});
