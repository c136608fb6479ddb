// The workspace credential a target names (`credential: "<name>"` in its spec): opened with
// OPSBENCH_SECRET_KEY and, before anything is deployed, checked against its platform again (it may have been
// revoked since it was saved). Teardown opens it without the check: it must clean up whatever happens.
import { type CredentialSecret, credentialKindOf, credentialNameOf, type TargetDefinition } from "@opsbench/core";
import { credentialRefusalForRequester, markCredentialChecked, NotFoundError, openCredential, SecretKeyError } from "@opsbench/db";
import { checkCredential } from "@opsbench/providers";
import type { RunContext } from "./run-context";
import { RunFailure } from "./run-failure";

/**
 * Credentials by role, before anything is deployed (and before the credential is opened or sent to its platform):
 * the member who asked for the run must, with their role as it is now, be allowed to deploy with the credential the
 * target names (owners always; editors when an owner opened it to them). The API checked when the run was made.
 */
export async function checkCredentialRole(ctx: RunContext, spec: TargetDefinition["spec"]): Promise<void> {
  const name = credentialNameOf(spec);
  if (!name) return;
  const run = await ctx.store.get();
  const refusal = await credentialRefusalForRequester(ctx.deps.db, run.workspaceId, run.requestedBy ?? null, name);
  if (refusal) throw new RunFailure(`${refusal}; refused before anything was deployed`);
}

/**
 * The target's credential, opened (null: the spec names none), and refused when it is not of the kind the target's
 * kind takes (core kinds/: a kubeconfig for kubernetes, an AWS key for aws-*...). `spec` is the parsed one before
 * deploy; teardown passes the run's stored copy as it is, since it must clean up whatever the spec says.
 */
export async function openTargetCredential(
  ctx: RunContext,
  { kind, spec }: { kind: string; spec: unknown },
  { check }: { check: boolean },
): Promise<{ credential: CredentialSecret | null }> {
  const name = credentialNameOf(spec);
  if (!name) return { credential: null };
  const run = await ctx.store.get();
  let credential: CredentialSecret;
  try {
    credential = await openCredential(ctx.deps.db, run.workspaceId, name, ctx.deps.secretKey);
  } catch (err) {
    if (err instanceof NotFoundError) throw new RunFailure(`the target names credential "${name}", which this workspace does not have`);
    if (err instanceof SecretKeyError) throw new RunFailure(`credential "${name}": ${err.message}`);
    throw err;
  }
  const takes = credentialKindOf(kind, spec);
  if (credential.kind !== takes)
    throw new RunFailure(
      takes
        ? `the target names credential "${name}", which is a ${credential.kind} credential: ${kind} targets take ${takes} credentials; refused before deploying`
        : `the target names credential "${name}", but ${kind} targets take no credential; refused before deploying`,
    );
  if (!check) return { credential };
  const result = await checkCredential(credential, {
    signal: ctx.signal,
    endpoints: ctx.deps.endpoints,
    loadHosts: ctx.deps.loadHosts,
    protectedPorts: ctx.deps.k6.blockPorts,
  });
  if (!result.ok) throw new RunFailure(`credential "${name}" (${credential.kind}) was refused before deploying: ${result.message}`);
  await markCredentialChecked(ctx.deps.db, run.workspaceId, name);
  ctx.log.info({ credential: name, identity: result.identity }, "credential checked before deploy");
  return { credential };
}
