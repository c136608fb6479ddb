// Users' own k6 scripts are checked before the web app saves them (it never spawns k6): this
// consumer of the script-validation queue (packages/jobs/src/script-validation.ts) asks the
// host's runner for `k6 inspect`. A script's own errors are results, not failures.
import { UnrecoverableError, Worker } from "bullmq";
import {
  SCRIPT_VALIDATION_QUEUE,
  queuePrefix,
  redisConnection,
  scriptValidationPayload,
  type ScriptValidationPayload,
  type ScriptValidationResult,
} from "@opsbench/jobs";
import type { Logger } from "./logger";
import type { RunnerClient } from "./runner-client";

export function startScriptValidationWorker(opts: { redisUrl: string; runner: RunnerClient; log: Logger }) {
  const worker = new Worker<ScriptValidationPayload, ScriptValidationResult>(
    SCRIPT_VALIDATION_QUEUE,
    async (job) => {
      const parsed = scriptValidationPayload.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`bad job payload: ${parsed.error.message}`);
      const { source, ...bundle } = parsed.data;
      const result = await opts.runner.inspect(source, bundle);
      opts.log.info({ jobId: job.id, ok: result.ok }, "script validated");
      return result;
    },
    // Validation is short and light; two at once keep a submit from waiting behind another.
    { connection: redisConnection(opts.redisUrl), prefix: queuePrefix(opts.redisUrl), concurrency: 2 },
  );
  worker.on("error", (err) => opts.log.error({ err }, "script validation worker error"));
  return worker;
}
