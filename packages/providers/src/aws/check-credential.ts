// Is an AWS credential usable? STS GetCallerIdentity (is it a valid key at all), then
// one read-only call per service the aws kinds use (may it see them). Run when the
// credential is saved and again before a deploy creates anything. Messages name the
// credential and the refused call, never the secret.
import { AutoScalingClient, DescribeAutoScalingGroupsCommand } from "@aws-sdk/client-auto-scaling";
import { CloudWatchClient, ListMetricsCommand } from "@aws-sdk/client-cloudwatch";
import { DescribeLaunchTemplatesCommand, EC2Client } from "@aws-sdk/client-ec2";
import { DescribeLoadBalancersCommand, ElasticLoadBalancingV2Client } from "@aws-sdk/client-elastic-load-balancing-v2";
import { LambdaClient, ListFunctionsCommand } from "@aws-sdk/client-lambda";
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import type { CredentialSecret } from "@opsbench/core";
import { ProviderError } from "../provider";
import { awsErrorMessage, awsSession, type AwsSession } from "./session";

/** Who the credential is (its ARN); throws a ProviderError naming the credential when AWS refuses it. */
export async function awsCallerIdentity(session: AwsSession, name?: string): Promise<string> {
  const sts = new STSClient(session);
  try {
    const r = await sts.send(new GetCallerIdentityCommand({}));
    return r.Arn ?? `account ${r.Account}`;
  } catch (err) {
    throw new ProviderError(`the AWS credential${name ? ` "${name}"` : ""} is refused by STS GetCallerIdentity: ${awsErrorMessage(err)}`);
  } finally {
    sts.destroy();
  }
}

/** The read-only calls the aws kinds need, by the IAM action they prove. */
const READS: Array<[action: string, call: (s: AwsSession) => Promise<unknown>]> = [
  ["ec2:DescribeLaunchTemplates", (s) => use(new EC2Client(s), (c) => c.send(new DescribeLaunchTemplatesCommand({ MaxResults: 5 })))],
  [
    "autoscaling:DescribeAutoScalingGroups",
    (s) => use(new AutoScalingClient(s), (c) => c.send(new DescribeAutoScalingGroupsCommand({ MaxRecords: 1 }))),
  ],
  [
    "elasticloadbalancing:DescribeLoadBalancers",
    (s) => use(new ElasticLoadBalancingV2Client(s), (c) => c.send(new DescribeLoadBalancersCommand({ PageSize: 1 }))),
  ],
  ["lambda:ListFunctions", (s) => use(new LambdaClient(s), (c) => c.send(new ListFunctionsCommand({ MaxItems: 1 })))],
  ["cloudwatch:ListMetrics", (s) => use(new CloudWatchClient(s), (c) => c.send(new ListMetricsCommand({ Namespace: "AWS/Lambda" })))],
];

async function use<C extends { destroy(): void }, T>(client: C, fn: (c: C) => Promise<T>): Promise<T> {
  try {
    return await fn(client);
  } finally {
    client.destroy();
  }
}

export async function checkAwsCredential(
  secret: Extract<CredentialSecret, { kind: "aws" }>,
  ctx: { name?: string; endpoint?: string },
): Promise<{ identity: string }> {
  const who = ctx.name ? `the AWS credential "${ctx.name}"` : "the AWS credential";
  const session = await awsSession(secret, secret.region, ctx.endpoint, "check").catch((err: unknown) => {
    throw new ProviderError(`${who} could not assume its role: ${awsErrorMessage(err)}`);
  });
  const identity = await awsCallerIdentity(session, ctx.name);
  const refused: string[] = [];
  for (const [action, call] of READS) {
    try {
      await call(session);
    } catch (err) {
      refused.push(`${action} (${awsErrorMessage(err)})`);
    }
  }
  if (refused.length) throw new ProviderError(`${who} (${identity}) may not call ${refused.join(", ")}`);
  return { identity };
}
