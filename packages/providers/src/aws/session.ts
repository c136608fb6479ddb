// The AWS SDK settings for a run: the workspace credential (assuming its role when
// it names one), the target's region, and the worker's endpoint override (moto in
// the tests). The secret never goes into a log, an event or an error message.
import { AssumeRoleCommand, STSClient } from "@aws-sdk/client-sts";
import { ProviderError, type ProviderContext, type ReaperContext } from "../provider";
import type { CredentialSecret } from "@opsbench/core";

type AwsCredentialSecret = Extract<CredentialSecret, { kind: "aws" }>;

export interface AwsSession {
  region: string;
  endpoint?: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  maxAttempts: number;
}

/** The credential of the context, if it is an AWS one; else a message naming what is wrong. */
export function awsCredentialOf(ctx: Pick<ProviderContext, "credential">, name: string): AwsCredentialSecret {
  const c = ctx.credential;
  if (!c) throw new ProviderError(`the credential "${name}" is missing: save an AWS credential under that name in the workspace`);
  if (c.kind !== "aws") throw new ProviderError(`the credential "${name}" is a ${c.kind} credential, not an AWS one`);
  return c;
}

export async function awsSession(
  credential: AwsCredentialSecret,
  region: string,
  endpoint: string | undefined,
  runId: string,
): Promise<AwsSession> {
  const base: AwsSession = {
    region,
    ...(endpoint ? { endpoint } : {}),
    credentials: {
      accessKeyId: credential.accessKeyId,
      secretAccessKey: credential.secretAccessKey,
      ...(credential.sessionToken ? { sessionToken: credential.sessionToken } : {}),
    },
    maxAttempts: 3,
  };
  if (!credential.roleArn) return base;
  const sts = new STSClient(base);
  try {
    const r = await sts.send(
      new AssumeRoleCommand({ RoleArn: credential.roleArn, RoleSessionName: `opsbench-${runId.slice(0, 8)}`, DurationSeconds: 3600 }),
    );
    const c = r.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey) throw new ProviderError(`assuming the role ${credential.roleArn} returned no credentials`);
    return { ...base, credentials: { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken } };
  } finally {
    sts.destroy();
  }
}

/** The reaper's session: the credential's own region (resources in other regions are not listed). */
export function reaperAwsSession(ctx: ReaperContext): Promise<AwsSession> {
  const c = ctx.credential;
  if (c.kind !== "aws") throw new ProviderError(`the reaper got a ${c.kind} credential, not an AWS one`);
  return awsSession(c, c.region, ctx.endpoints?.aws, "reaper00");
}

/** An AWS error as a user-facing message: its code and message, never the request. */
export function awsErrorMessage(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
