// The script-validation queue contract. The web app never spawns k6, so a
// user's own k6 script is checked by the worker (`k6 inspect`) before anything
// is saved or queued: the caller enqueues the source and awaits the answer.
import { Queue, QueueEvents } from "bullmq";
import { type ScriptBundle, scriptBundleFields } from "@opsbench/core";
import { z } from "zod";
import { queuePrefix, redisConnection } from "./queues";
import { scriptValidationResult, type ScriptValidationResult } from "./runner-protocol";

export const SCRIPT_VALIDATION_QUEUE = "script-validate";

export const scriptValidationPayload = z.object({ source: z.string().min(1).max(1_000_000), ...scriptBundleFields }).strict();
export type ScriptValidationPayload = z.infer<typeof scriptValidationPayload>;

/** No worker answered in time (none running, or all busy): not the script's fault. */
export class ScriptValidationUnavailable extends Error {}

export const DEFAULT_SCRIPT_VALIDATION_TIMEOUT_MS = 20_000;

export function createScriptValidator(redisUrl: string, prefix = queuePrefix(redisUrl)) {
  const connection = redisConnection(redisUrl);
  const queue = new Queue<ScriptValidationPayload>(SCRIPT_VALIDATION_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: {
      // Checking a script changes nothing, so a second attempt is safe (a worker that died mid-check, a k6 that crashed).
      attempts: 2,
      backoff: { type: "fixed", delay: 500 },
      // Kept a few minutes, so the waiting side can still read a result that arrived before it listened.
      removeOnComplete: { age: 300, count: 1000 },
      removeOnFail: { age: 3600, count: 1000 },
    },
  });
  const events = new QueueEvents(SCRIPT_VALIDATION_QUEUE, { connection, prefix });
  queue.on("error", (err) => console.error(`script validation queue: ${err.message}`));
  events.on("error", (err) => console.error(`script validation events: ${err.message}`));

  return {
    /**
     * Validates a k6 script on a worker: `{ ok: true, options }` or `{ ok: false, message }`
     * with k6's error. Throws ScriptValidationUnavailable when no worker answers within timeoutMs.
     */
    async validateScript(
      source: string,
      timeoutMs = DEFAULT_SCRIPT_VALIDATION_TIMEOUT_MS,
      bundle: ScriptBundle = {},
    ): Promise<ScriptValidationResult> {
      const data = scriptValidationPayload.parse({ source, ...bundle });
      await events.waitUntilReady();
      const job = await queue.add("validate", data);
      let result: unknown;
      try {
        result = await job.waitUntilFinished(events, timeoutMs);
      } catch (err) {
        const message = (err as Error).message;
        if (/timed out/i.test(message)) {
          await job.remove().catch(() => {}); // a late worker need not check it any more
          throw new ScriptValidationUnavailable(
            `no worker validated the script within ${Math.round(timeoutMs / 1000)} s; is a worker running?`,
          );
        }
        throw new Error(`script validation failed on the worker: ${message}`);
      }
      return scriptValidationResult.parse(result);
    },
    close: async () => {
      await events.close();
      await queue.close();
    },
  };
}
export type ScriptValidator = ReturnType<typeof createScriptValidator>;
