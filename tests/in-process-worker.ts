// The file's worker in the test's own process (tests/file-services.ts useWorker): apps/worker's startWorker with the
// environment the CLI would give its worker process, its log appended to a file rather than the test's output.
import { workerConfig } from "../apps/worker/src/config";
import { loadEnv } from "../apps/worker/src/env";
import { createLogger } from "../apps/worker/src/logger";
import { startWorker } from "../apps/worker/src/worker";
import type { InProcessWorkerModule } from "./file-services";

export async function startInProcessWorker(env: NodeJS.ProcessEnv, logFile: string) {
  const settings = loadEnv(env);
  return startWorker(workerConfig(settings), createLogger(settings.LOG_LEVEL, logFile));
}
startInProcessWorker satisfies InProcessWorkerModule["startInProcessWorker"];
