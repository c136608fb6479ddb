// A k6 runner (apps/runner) inside the test's own process, on a socket of its own, for tests
// that execute runs in-process (openTestStack({ worker: false })) and need the worker's K6Settings.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { K6Deadline } from "@opsbench/jobs";
import { loadEnv } from "../apps/runner/src/env";
import { k6Version } from "../apps/runner/src/k6-process";
import { createLogger } from "../apps/runner/src/logger";
import { createRunnerServer, listenOnSocket } from "../apps/runner/src/server";
import { type K6Settings, RunnerClient } from "../apps/worker/src/runner-client";

export async function startTestRunner(opts: { allowUnsandboxed?: boolean; stockK6Binary?: string } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-runner-"));
  const socket = path.join(dir, "runner.sock");
  // A stock k6 the admin brings (OPSBENCH_K6_BINARY) instead of opsbench-engine, when given.
  const binary = opts.stockK6Binary ?? loadEnv({}).OPSBENCH_ENGINE;
  const runner = createRunnerServer({
    k6Binary: binary,
    k6Version: k6Version(binary),
    ...(opts.stockK6Binary ? { stockK6: true } : {}),
    workDir: path.join(dir, "runs"),
    stateDir: path.join(dir, "state"),
    hostId: `test-${path.basename(dir)}`,
    allowUnsandboxed: opts.allowUnsandboxed ?? false,
    blockedRanges: [],
    log: createLogger("silent"),
  });
  await listenOnSocket(runner.server, socket);
  const client = new RunnerClient(socket);
  return {
    socket,
    /** Where the runner gives each k6 its folder (and keeps k6-samples/). */
    workDir: path.join(dir, "runs"),
    client,
    runner,
    k6: (deadline: K6Deadline = { graceSeconds: 120, maxSeconds: 86_400 }): K6Settings => ({
      runner: client,
      version: k6Version(binary),
      deadline,
      blockHosts: [],
    }),
    async close() {
      await runner.stopAll();
      await new Promise((r) => runner.server.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
