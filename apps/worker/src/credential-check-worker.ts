// Checks credentials being saved (the web app never calls a cloud API): the handler of the credential-check queue
// (served by consumers.ts) opens the sealed secret with OPSBENCH_SECRET_KEY and asks the platform (packages/providers
// credential-checks). The answer says what is wrong or missing; the secret is never logged or answered.
import type { Job } from "bullmq";
import type { LoadHostAllowlist, ProtectedPort } from "@opsbench/core";
import { openSealedCredential, SecretKeyError } from "@opsbench/db";
import type { CredentialCheckPayload, CredentialCheckResult } from "@opsbench/jobs";
import { checkCredential, type ProviderEndpoints } from "@opsbench/providers";
import type { Logger } from "./logger";

export function checkCredentialJob(opts: {
  secretKey: string | undefined;
  endpoints: ProviderEndpoints;
  /** OPSBENCH_LOAD_ALLOWED_HOSTS: a kubeconfig's server must pass it before one request is sent. */
  loadHosts?: LoadHostAllowlist;
  /** The ports of opsbench's own services: never a kubeconfig's server. */
  protectedPorts?: readonly ProtectedPort[];
  log: Logger;
}) {
  return async ({ workspaceId, name, sealed }: CredentialCheckPayload, job: Job): Promise<CredentialCheckResult> => {
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
  };
}
