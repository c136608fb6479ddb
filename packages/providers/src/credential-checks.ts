// Checks a workspace credential against its platform, by kind (the worker runs these when a credential is
// saved and again before a run deploys): the platform answers, and the credential may do what opsbench needs.
import type { CredentialKind, CredentialSecret } from "@opsbench/core";
import { checkAwsCredential } from "./aws/check-credential";
import { checkGcpCredential } from "./gcp-cloud-run/check-credential";
import { checkKubernetesCredential } from "./kubernetes/credential-check";
import { type CredentialCheckContext, type CredentialCheckResult, ProviderError } from "./provider";

// Declared with the providers' types (provider.ts), where each kind's own check (e.g. kubernetes/credential-check.ts) reads them.
export type { CredentialCheckContext, CredentialCheckResult } from "./provider";

type Check<K extends CredentialKind> = (
  secret: Extract<CredentialSecret, { kind: K }>,
  ctx: CredentialCheckContext,
) => Promise<CredentialCheckResult>;

/** One check per kind (aws: STS GetCallerIdentity; gcp: a Cloud Run list call; kubernetes: SelfSubjectAccessReview). */
const CHECKS: { [K in CredentialKind]?: Check<K> } = {
  kubernetes: checkKubernetesCredential,
  aws: (secret, ctx) => asResult(checkAwsCredential(secret, { endpoint: ctx.endpoints?.aws })),
  gcp: (secret, ctx) => asResult(checkGcpCredential(secret, { endpoint: ctx.endpoints?.gcp })),
};

/** A refusal (ProviderError) as a result; anything else stays an error. */
function asResult(check: Promise<{ identity: string }>): Promise<CredentialCheckResult> {
  return check.then(
    ({ identity }) => ({ ok: true, identity }),
    (err: unknown) => {
      if (err instanceof ProviderError) return { ok: false, message: err.message };
      throw err;
    },
  );
}

export async function checkCredential(secret: CredentialSecret, ctx: CredentialCheckContext = {}): Promise<CredentialCheckResult> {
  const check = CHECKS[secret.kind] as Check<typeof secret.kind> | undefined;
  if (!check) return { ok: false, message: `this worker cannot check ${secret.kind} credentials yet` };
  return check(secret, ctx);
}
