// Users' own k6 scripts are checked before the web app saves them (it never spawns k6): the handler of the
// script-validation queue (packages/jobs/src/script-validation.ts; served by consumers.ts) asks the host's runner
// for `k6 inspect`. A script's own errors are results, not failures.
import type { Job } from "bullmq";
import type { ScriptValidationPayload, ScriptValidationResult } from "@opsbench/jobs";
import type { Logger } from "./logger";
import type { RunnerClient } from "./runner-client";

export function validateScriptJob(opts: { runner: RunnerClient; log: Logger }) {
  return async ({ source, ...bundle }: ScriptValidationPayload, job: Job): Promise<ScriptValidationResult> => {
    const result = await opts.runner.inspect(source, bundle);
    opts.log.info({ jobId: job.id, ok: result.ok }, "script validated");
    return result;
  };
}
