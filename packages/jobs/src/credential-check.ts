// The credential-check queue contract. The web app never calls a cloud API, so a credential being saved is
// checked by a worker (STS GetCallerIdentity, a Cloud Run list call, a Kubernetes SelfSubjectAccessReview):
// the web app seals it (the job carries only ciphertext), enqueues it and awaits the answer.
import { Queue, QueueEvents } from "bullmq";
import { z } from "zod";
import { queuePrefix, redisConnection } from "./queues";

export const CREDENTIAL_CHECK_QUEUE = "credential-check";

export const credentialCheckPayload = z
  .object({
    workspaceId: z.uuid(),
    name: z.string().min(1).max(64),
    /** The secret sealed for this workspace and name (packages/db/src/workspaces/secret-box.ts). */
    sealed: z.string().min(1).max(1_000_000),
  })
  .strict();
export type CredentialCheckPayload = z.infer<typeof credentialCheckPayload>;

export const credentialCheckResult = z.discriminatedUnion("ok", [
  /** `identity`: who the platform says the credential is (an ARN, a service account, a user). */
  z.object({ ok: z.literal(true), identity: z.string().nullable() }),
  /** What is wrong or missing, naming it; never the secret. */
  z.object({ ok: z.literal(false), message: z.string() }),
]);
export type CredentialCheckResult = z.infer<typeof credentialCheckResult>;

/** No worker answered in time: not the credential's fault. */
export class CredentialCheckUnavailable extends Error {}

export const DEFAULT_CREDENTIAL_CHECK_TIMEOUT_MS = 30_000;

export function createCredentialChecker(redisUrl: string, prefix = queuePrefix(redisUrl)) {
  const connection = redisConnection(redisUrl);
  const queue = new Queue<CredentialCheckPayload>(CREDENTIAL_CHECK_QUEUE, {
    connection,
    prefix,
    // The payload is ciphertext, but it need not outlive the answer.
    defaultJobOptions: { attempts: 1, removeOnComplete: { age: 60 }, removeOnFail: { age: 60 } },
  });
  const events = new QueueEvents(CREDENTIAL_CHECK_QUEUE, { connection, prefix });
  queue.on("error", (err) => console.error(`credential check queue: ${err.message}`));
  events.on("error", (err) => console.error(`credential check events: ${err.message}`));
  return {
    /** Checks a sealed credential on a worker; throws CredentialCheckUnavailable when none answers within timeoutMs. */
    async check(payload: CredentialCheckPayload, timeoutMs = DEFAULT_CREDENTIAL_CHECK_TIMEOUT_MS): Promise<CredentialCheckResult> {
      const data = credentialCheckPayload.parse(payload);
      await events.waitUntilReady();
      const job = await queue.add("check", data);
      try {
        return credentialCheckResult.parse(await job.waitUntilFinished(events, timeoutMs));
      } catch (err) {
        await job.remove().catch(() => {});
        if (/timed out/i.test((err as Error).message))
          throw new CredentialCheckUnavailable(
            `no worker checked the credential within ${Math.round(timeoutMs / 1000)} s; is a worker running? Nothing was saved.`,
          );
        throw new Error(`the credential check failed on the worker: ${(err as Error).message}`);
      }
    },
    close: async () => {
      await events.close();
      await queue.close();
    },
  };
}
export type CredentialChecker = ReturnType<typeof createCredentialChecker>;
