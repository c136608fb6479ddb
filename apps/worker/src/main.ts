// The worker process: one worker (worker.ts) with the settings of its environment and command line. On
// SIGTERM/SIGINT it stops within a bound: stop taking jobs, stop k6 gracefully (its results are kept), tear the
// target down, mark the run ABORTED, close Redis and Postgres, exit 0; past OPSBENCH_SHUTDOWN_GRACE_SECONDS it
// exits 1 and leaves what is unfinished to the next start's reconciler.
import { workerConfig } from "./config";
import { loadEnv } from "./env";
import { createLogger } from "./logger";
import { startWorker } from "./worker";

const env = loadEnv();
const config = workerConfig(env, process.argv);
const log = createLogger(env.LOG_LEVEL);
const worker = await startWorker(config, log);

let stopping = false;
function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  // The bound: whatever is not done by then is left to the next start's reconciler.
  setTimeout(() => {
    log.error({ running: [...worker.inFlight.live.runs] }, "shutdown grace period over; exiting with work unfinished");
    process.exit(1);
  }, env.OPSBENCH_SHUTDOWN_GRACE_SECONDS * 1000).unref();
  void worker.close({ signal, graceSeconds: env.OPSBENCH_SHUTDOWN_GRACE_SECONDS }).then(() => process.exit(0));
}
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
