// The runner on its own: it will not start holding a secret; a run streams k6's per-second
// lines and its result back to the worker; a worker that goes away mid-run stops its k6 and
// network; a runner killed mid-run leaves a network that the next runner on its socket removes.
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { K6OutputLine } from "@opsbench/core";
import { createLoadNetwork, listLoadNetworks, removeLoadNetwork } from "@opsbench/host";
import { startTestRunner } from "../../../tests/k6-runner";
import { RunnerClient, RunnerUnavailable } from "../../worker/src/runner-client";
import { loadEnv } from "../src/env";
import { createLogger } from "../src/logger";
import { loadNetworkNotes } from "../src/sweep-load-networks";
import { nodeProgram } from "../../cli/src/processes";

const repoRoot = path.resolve(import.meta.dirname, "../../..");
let target: http.Server;
let baseUrl: string;
let runner: Awaited<ReturnType<typeof startTestRunner>>;

beforeAll(async () => {
  target = http.createServer((_req, res) => res.end("ok"));
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  runner = await startTestRunner();
});
afterAll(async () => {
  await runner.close();
  target.close();
});

const steady = (seconds: number) => `
import http from "k6/http";
export const options = { vus: 2, duration: "${seconds}s" };
export default function () { http.get(__ENV.OPSBENCH_BASE_URL + "/"); }
`;

/** Alive and not a zombie (an orphan's zombie may wait for a pid 1 that does not reap). */
const pidAlive = (pid: number) => {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

describe("the runner holds no secret", () => {
  it("refuses to start with the secret key, a database or Redis address or a password in its environment, naming them", () => {
    expect(() => loadEnv({ OPSBENCH_SECRET_KEY: "x".repeat(64), DATABASE_URL: "postgresql://a:b@c/d" })).toThrow(
      /must hold no secret.*OPSBENCH_SECRET_KEY, DATABASE_URL/,
    );
    expect(() => loadEnv({ REDIS_PASSWORD: "p" })).toThrow(/REDIS_PASSWORD/);
    // A secret's file (Kubernetes and Docker secrets) is refused as the secret is, and so is any process's secret.
    expect(() => loadEnv({ DATABASE_URL_FILE: "/run/secrets/db" })).toThrow(/must hold no secret.*DATABASE_URL_FILE/);
    expect(() => loadEnv({ OPSBENCH_AUTH_SECRET: "s".repeat(32) })).toThrow(/OPSBENCH_AUTH_SECRET/);
    expect(loadEnv({ OPSBENCH_RUNNER_SOCKET: "/tmp/x.sock" }).OPSBENCH_RUNNER_SOCKET).toBe("/tmp/x.sock");
  });
});

describe("a run through the runner", () => {
  it("streams k6's per-second lines and its result; the request count equals k6's own", async () => {
    const lines: K6OutputLine[] = [];
    const owned: Array<{ network: { ns: string } | null }> = [];
    const result = await runner.client.runK6(
      { key: "stream-test", script: steady(3), env: { OPSBENCH_BASE_URL: baseUrl } },
      { signal: new AbortController().signal, onLine: (l) => lines.push(l), onOwned: (o) => owned.push(o) },
    );
    expect(result.exitCode, result.outputTail).toBe(0);
    expect(result.unsandboxed).toBeNull();
    const requests = lines.flatMap((l) => (l.t === "http" ? [l.n] : [])).reduce((a, b) => a + b, 0);
    const k6Count = (result.summary as { metrics: { http_reqs: { count: number } } }).metrics.http_reqs.count;
    expect(requests).toBeGreaterThan(0);
    expect(requests).toBe(k6Count);
    // Sandboxed: k6 ran in a load network of its own, removed with the run.
    const ns = owned.find((o) => o.network)?.network?.ns;
    expect(ns).toBeDefined();
    expect(await listLoadNetworks()).not.toContain(ns);
    expect(runner.runner.running()).toEqual([]);
  });

  it("a worker that goes away mid-run stops its k6 and removes its network", async () => {
    let pid: number | null = null;
    let ns: string | null = null;
    const cut = new AbortController();
    // A raw request, dropped mid-stream as a killed worker's socket would be.
    const req = http.request({ socketPath: runner.socket, method: "POST", path: "/k6" });
    req.end(JSON.stringify({ key: "gone-test", script: steady(60), env: { OPSBENCH_BASE_URL: baseUrl } }));
    await new Promise<void>((resolve, reject) => {
      req.on("response", (res) => {
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          for (const line of chunk.split("\n").filter(Boolean)) {
            const e = JSON.parse(line) as { e: string; owned?: { pid: number | null; network: { ns: string } | null } };
            if (e.e === "owned" && e.owned?.network) ns = e.owned.network.ns;
            if (e.e === "owned" && e.owned?.pid) pid = e.owned.pid;
            if (e.e === "line" && pid !== null) return resolve();
          }
        });
      });
      req.on("error", reject);
      cut.signal.addEventListener("abort", () => reject(new Error("aborted")));
    });
    expect(pid).not.toBeNull();
    expect(pidAlive(pid!)).toBe(true);
    req.destroy();
    const until = Date.now() + 40_000;
    while (runner.runner.running().includes("gone-test") && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(runner.runner.running()).toEqual([]);
    expect(pidAlive(pid!)).toBe(false);
    expect(await listLoadNetworks()).not.toContain(ns);
  });

  it("a runner that is not there is named, not waited for", async () => {
    const absent = new RunnerClient(path.join(os.tmpdir(), "opsbench-no-such-runner.sock"));
    await expect(absent.health()).rejects.toThrow(/does not answer on .*opsbench-no-such-runner\.sock/);
    await expect(absent.health()).rejects.toBeInstanceOf(RunnerUnavailable);
  });
});

describe("a runner killed mid-run", () => {
  it("the worker's side ends with RunnerUnavailable, k6 dies with the runner, and the next runner on the socket removes the network", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-runner-kill-"));
    const socket = path.join(dir, "runner.sock");
    const start = () =>
      spawn(process.execPath, nodeProgram("runner"), {
        cwd: repoRoot,
        env: { PATH: process.env.PATH ?? "", OPSBENCH_RUNNER_SOCKET: socket, OPSBENCH_WORK_DIR: path.join(dir, "runs"), LOG_LEVEL: "warn" },
        stdio: "ignore",
      });
    const client = new RunnerClient(socket);
    const waitUp = async (child: ChildProcess) => {
      for (let i = 0; i < 300; i++) {
        if (child.exitCode !== null) throw new Error(`the runner exited (${child.exitCode})`);
        if (
          await client.health().then(
            () => true,
            () => false,
          )
        )
          return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("the runner did not come up");
    };
    const first: ChildProcess | null = start();
    let second: ChildProcess | null = null;
    try {
      await waitUp(first);
      let pid: number | null = null;
      let ns: string | null = null;
      let seconds = 0;
      const running = client.runK6(
        { key: "killed-test", script: steady(60), env: { OPSBENCH_BASE_URL: baseUrl } },
        {
          signal: new AbortController().signal,
          onLine: (l) => {
            if (l.t === "load") seconds++;
            if (seconds === 2) first?.kill("SIGKILL");
          },
          onOwned: (o) => {
            pid = o.pid ?? pid;
            ns = o.network?.ns ?? ns;
          },
        },
      );
      await expect(running).rejects.toThrow(/the k6 runner stopped during the load/);
      expect(pid).not.toBeNull();
      await new Promise((r) => setTimeout(r, 500));
      expect(pidAlive(pid!), "k6 dies with the runner (bubblewrap --die-with-parent)").toBe(false);
      expect(ns).not.toBeNull();
      // Its nftables table outlives it; the next runner on the socket removes it before it listens.
      second = start();
      await waitUp(second);
      expect(await listLoadNetworks()).not.toContain(ns);
    } finally {
      first?.kill("SIGKILL");
      second?.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the sweep removes only the networks this runner noted", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-notes-"));
    const noted = await createLoadNetwork({ port: 1 });
    const foreign = await createLoadNetwork({ port: 1 });
    try {
      const notes = loadNetworkNotes(dir);
      notes.add(noted.ns);
      expect(await notes.sweep(createLogger("silent"))).toEqual([noted.ns]);
      const left = await listLoadNetworks();
      expect(left).not.toContain(noted.ns);
      expect(left).toContain(foreign.ns);
    } finally {
      await removeLoadNetwork(noted);
      await removeLoadNetwork(foreign);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
