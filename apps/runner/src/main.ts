// The runner process: the one place on a host where users' k6 scripts execute (docs/security.md).
// It holds no secret (env.ts refuses to start with one), runs k6 in bubblewrap inside a network
// namespace that reaches only the target, and answers the worker on a unix socket (server.ts).
// On SIGTERM it stops its k6 gracefully, lets their results stream back, and exits.
import { k6Version } from "./k6-process";
import { loadEnv } from "./env";
import { createLogger } from "./logger";
import { createRunnerServer, listenOnSocket, stateDirOf } from "./server";
import { sandboxProblem } from "./k6-sandbox";

const env = loadEnv();
const log = createLogger(env.LOG_LEVEL);
const runner = createRunnerServer({
  k6Binary: env.OPSBENCH_K6_BINARY ?? env.OPSBENCH_ENGINE,
  k6Version: k6Version(env.OPSBENCH_K6_BINARY ?? env.OPSBENCH_ENGINE),
  stockK6: env.OPSBENCH_K6_BINARY !== undefined,
  workDir: env.OPSBENCH_WORK_DIR,
  stateDir: stateDirOf(env.OPSBENCH_WORK_DIR, env.OPSBENCH_RUNNER_SOCKET),
  hostId: env.OPSBENCH_RUNNER_HOST_ID,
  allowUnsandboxed: env.OPSBENCH_ALLOW_UNSANDBOXED_SCRIPTS,
  blockedRanges: env.OPSBENCH_K6_BLOCKED_RANGES,
  resources: {
    memoryMb: env.OPSBENCH_K6_MEMORY_MB,
    inspectMemoryMb: env.OPSBENCH_K6_INSPECT_MEMORY_MB,
    maxThreads: env.OPSBENCH_K6_MAX_THREADS,
  },
  log,
});
await runner.sweep();
await listenOnSocket(runner.server, env.OPSBENCH_RUNNER_SOCKET, env.OPSBENCH_RUNNER_SOCKET_GID);
const problem = await sandboxProblem(env.OPSBENCH_K6_BINARY ?? env.OPSBENCH_ENGINE);
if (problem)
  log.warn(
    { problem, allowUnsandboxed: env.OPSBENCH_ALLOW_UNSANDBOXED_SCRIPTS },
    env.OPSBENCH_ALLOW_UNSANDBOXED_SCRIPTS
      ? "k6 cannot be sandboxed here: runs go unsandboxed and are flagged"
      : "k6 cannot be sandboxed here: runs are refused",
  );
log.info({ socket: env.OPSBENCH_RUNNER_SOCKET, hostId: env.OPSBENCH_RUNNER_HOST_ID, sandboxed: !problem }, "runner ready");

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal, running: runner.running() }, "runner stopping");
  setTimeout(() => process.exit(1), 60_000).unref();
  runner.server.close();
  await runner.stopAll();
  log.info("runner stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
