// Checks credentials being saved (the web app never calls a cloud API): consumes the credential-check queue,
// opens the sealed secret with OPSBENCH_SECRET_KEY and asks the platform (packages/providers credential-checks).
// The answer says what is wrong or missing; the secret is never logged or answered.
import { UnrecoverableError, Worker } from "bullmq";
import type { LoadHostAllowlist, ProtectedPort } from "@opsbench/core";
import { openSealedCredential, SecretKeyError } from "@opsbench/db";
import {
  CREDENTIAL_CHECK_QUEUE,
  type CredentialCheckPayload,
  type CredentialCheckResult,
  credentialCheckPayload,
  queuePrefix,
  redisConnection,
} from "@opsbench/jobs";
import { checkCredential, type ProviderEndpoints } from "@opsbench/providers";
import type { Logger } from "./logger";

export function startCredentialCheckWorker(opts: {
  redisUrl: string;
  secretKey: string | undefined;
  endpoints: ProviderEndpoints;
  /** OPSBENCH_LOAD_ALLOWED_HOSTS: a kubeconfig's server must pass it before one request is sent. */
  loadHosts?: LoadHostAllowlist;
  /** The ports of opsbench's own services: never a kubeconfig's server. */
  protectedPorts?: readonly ProtectedPort[];
  log: Logger;
}) {
  const worker = new Worker<CredentialCheckPayload, CredentialCheckResult>(
    CREDENTIAL_CHECK_QUEUE,
    async (job) => {
      const parsed = credentialCheckPayload.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError("bad credential-check payload");
      const { workspaceId, name, sealed } = parsed.data;
      let result: CredentialCheckResult;
      try {
        const secret = openSealedCredential(sealed, opts.secretKey, workspaceId, name);
        result = await checkCredential(secret, {
          endpoints: opts.endpoints,
          loadHosts: opts.loadHosts,
          protectedPorts: opts.protectedPorts,
          signal: AbortSignal.timeout(25_000),
        });
      } catch (err) {
        if (!(err instanceof SecretKeyError)) throw err;
        result = { ok: false, message: `the worker cannot open it: ${err.message}` };
      }
      opts.log.info({ jobId: job.id, workspaceId, credential: name, ok: result.ok }, "credential checked");
      return result;
    },
    { connection: redisConnection(opts.redisUrl), prefix: queuePrefix(opts.redisUrl), concurrency: 2 },
  );
  worker.on("error", (err) => opts.log.error({ err }, "credential check worker error"));
  return worker;
}
