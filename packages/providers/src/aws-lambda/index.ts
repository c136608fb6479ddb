// aws-lambda: a function (the echo handler, zipped) with a function URL; memory,
// timeout and reserved concurrency from the spec. Tagged opsbench:run=<id>;
// teardown deletes by tag through Lambda's own list calls. Metrics from CloudWatch
// at 60 s: invocations, duration, concurrency, throttles, init duration.
import {
  AddPermissionCommand,
  CreateFunctionCommand,
  CreateFunctionUrlConfigCommand,
  DeleteFunctionCommand,
  type FunctionCode,
  GetFunctionCommand,
  LambdaClient,
  ListTagsCommand,
  paginateListFunctions,
  PutFunctionConcurrencyCommand,
} from "@aws-sdk/client-lambda";
import { awsLambdaSpec, cloudResourceName, RUN_TAG_KEY, type AwsLambdaSpec } from "@opsbench/core";
import { cloudWatchPeriods, type CloudWatchMetric, PERIOD_SECONDS } from "../aws/cloudwatch-periods";
import { awsCallerIdentity } from "../aws/check-credential";
import { awsCredentialOf, awsErrorMessage, awsSession, reaperAwsSession } from "../aws/session";
import { cloudEndpoint } from "../cloud/cloud-endpoint";
import { observeCloud } from "../cloud/observe-cloud";
import { ProviderError, type Deployment, type KindProvider, type ProviderContext, type ReaperContext } from "../provider";
import { lambdaPackage } from "./function-zip";

export interface AwsLambdaState {
  region: string;
  credential: string;
  functionName?: string;
  functionUrl?: string;
  memoryMb: number;
  metrics?: AwsLambdaSpec["metrics"];
}

const sessionOf = (ctx: ProviderContext, state: Pick<AwsLambdaState, "region" | "credential">) =>
  awsSession(awsCredentialOf(ctx, state.credential), state.region, ctx.endpoints?.aws, ctx.runId);
const client = async (ctx: ProviderContext, state: Pick<AwsLambdaState, "region" | "credential">) =>
  new LambdaClient(await sessionOf(ctx, state));

async function deploy(spec: AwsLambdaSpec, ctx: ProviderContext): Promise<Deployment<AwsLambdaState>> {
  const state: AwsLambdaState = { region: spec.region, credential: spec.credential, memoryMb: spec.memoryMb, metrics: spec.metrics };
  const session = await sessionOf(ctx, state);
  // Refused credentials fail here, before anything is created.
  await awsCallerIdentity(session, spec.credential);
  const lambda = new LambdaClient(session);
  await ctx.saveState(state);
  const name = cloudResourceName(ctx.runId);
  try {
    state.functionName = name;
    await ctx.saveState(state);
    await lambda.send(
      new CreateFunctionCommand({
        FunctionName: name,
        Runtime: spec.runtime,
        Role: spec.roleArn,
        Handler: spec.handler ?? "index.handler",
        Code: codeOf(spec, ctx.benchappsDir),
        MemorySize: spec.memoryMb,
        Timeout: spec.timeoutSeconds,
        Tags: { [RUN_TAG_KEY]: ctx.runId },
      }),
    );
    if (spec.reservedConcurrency !== undefined)
      await lambda.send(new PutFunctionConcurrencyCommand({ FunctionName: name, ReservedConcurrentExecutions: spec.reservedConcurrency }));
    const url = await lambda.send(new CreateFunctionUrlConfigCommand({ FunctionName: name, AuthType: "NONE" }));
    state.functionUrl = url.FunctionUrl;
    await ctx.saveState(state);
    // A public function URL needs a resource policy allowing anyone to invoke it.
    await lambda.send(
      new AddPermissionCommand({
        FunctionName: name,
        StatementId: "opsbench-public-url",
        Action: "lambda:InvokeFunctionUrl",
        Principal: "*",
        FunctionUrlAuthType: "NONE",
      }),
    );
    await ctx.event?.(
      "info",
      `Lambda function ${name} created from ${codeLabel(spec)} (${spec.runtime}, ${spec.memoryMb} MB, timeout ${spec.timeoutSeconds} s${spec.reservedConcurrency !== undefined ? `, reserved concurrency ${spec.reservedConcurrency}` : ""})`,
    );
    return { endpoint: spec.endpointUrl ?? (state.functionUrl ?? "").replace(/\/$/, ""), state };
  } catch (err) {
    if (err instanceof ProviderError) throw err;
    throw new ProviderError(`creating the Lambda function failed: ${awsErrorMessage(err)}`);
  } finally {
    lambda.destroy();
  }
}

/** The deployment package: the user's zip (uploaded), their S3 object, or a benchapp zipped by opsbench. */
export function codeOf(spec: AwsLambdaSpec, benchappsDir: string): FunctionCode {
  const code = spec.code;
  if (!code) return { ZipFile: lambdaPackage(benchappsDir, spec.app ?? "echo/lambda") };
  if ("zipBase64" in code) return { ZipFile: Buffer.from(code.zipBase64, "base64") };
  return { S3Bucket: code.s3Bucket, S3Key: code.s3Key, ...(code.s3ObjectVersion ? { S3ObjectVersion: code.s3ObjectVersion } : {}) };
}

/** What the event says the function runs. */
const codeLabel = (spec: AwsLambdaSpec) =>
  !spec.code
    ? (spec.app ?? "echo/lambda")
    : "zipBase64" in spec.code
      ? `your zip (${Math.round((spec.code.zipBase64.length * 3) / 4 / 1024)} KiB)`
      : `s3://${spec.code.s3Bucket}/${spec.code.s3Key}`;

/** The function must be Active (a new one is Pending while Lambda prepares it). */
async function reset(dep: Deployment<AwsLambdaState>, ctx: ProviderContext, timeoutMs = 300_000): Promise<void> {
  const lambda = await client(ctx, dep.state);
  try {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const r = await lambda.send(new GetFunctionCommand({ FunctionName: dep.state.functionName }));
      const s = r.Configuration?.State;
      if (s === "Active" || s === undefined) return;
      if (s === "Failed")
        throw new ProviderError(`the Lambda function failed to become active: ${r.Configuration?.StateReason ?? "no reason given"}`);
      if (Date.now() > until || ctx.signal.aborted)
        throw new ProviderError(`the Lambda function is still ${s} after ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 2000));
    }
  } finally {
    lambda.destroy();
  }
}

export function lambdaMetrics(functionName: string): CloudWatchMetric[] {
  const fn = { FunctionName: functionName };
  const m = (
    key: string,
    metricName: string,
    stat: CloudWatchMetric["stat"],
    namespace = "AWS/Lambda",
    dimensions: Record<string, string> = fn,
  ) => ({
    key,
    namespace,
    metricName,
    dimensions,
    stat,
  });
  return [
    m("invocations", "Invocations", "Sum"),
    m("durationMsAvg", "Duration", "Average"),
    m("durationMsSum", "Duration", "Sum"),
    m("durationMsMax", "Duration", "Maximum"),
    m("concurrentExecutions", "ConcurrentExecutions", "Maximum"),
    m("throttles", "Throttles", "Sum"),
    m("errors", "Errors", "Sum"),
    // Init (cold start) duration is not an AWS/Lambda metric; Lambda Insights publishes it when enabled.
    m("initDurationMsMax", "init_duration", "Maximum", "LambdaInsights", { function_name: functionName }),
  ];
}

function observe(dep: Deployment<AwsLambdaState>, window: { signal: AbortSignal }, ctx: ProviderContext) {
  const { state } = dep;
  return observeCloud(
    {
      kind: "aws-lambda",
      periodSeconds: PERIOD_SECONDS,
      primary: "invocations",
      totals: ["billedMs", "gbSeconds", "requests"],
      open: async () => cloudWatchPeriods(await sessionOf(ctx, state), lambdaMetrics(state.functionName ?? "")),
      point: (v) => ({
        replicas: Math.round(v.concurrentExecutions ?? 0),
        cpuPercent: null,
        // Lambda bills each invocation's duration (1 ms steps) x memory: GB-seconds.
        add: {
          billedMs: v.durationMsSum,
          gbSeconds: ((v.durationMsSum ?? 0) / 1000) * (state.memoryMb / 1024),
          requests: v.invocations,
        },
      }),
    },
    window,
    state.metrics,
    ctx.log,
  );
}

/** Every function with a run tag, as [function name, run id]. */
async function taggedFunctions(lambda: LambdaClient): Promise<Array<[string, string]>> {
  const found: Array<[string, string]> = [];
  for await (const page of paginateListFunctions({ client: lambda }, {})) {
    for (const f of page.Functions ?? []) {
      if (!f.FunctionArn || !f.FunctionName) continue;
      const tags = await lambda.send(new ListTagsCommand({ Resource: f.FunctionArn }));
      const runId = tags.Tags?.[RUN_TAG_KEY];
      if (runId) found.push([f.FunctionName, runId]);
    }
  }
  return found;
}

/** The run's functions: tagged with its id (ListTags per function). */
export async function findRunFunctions(lambda: LambdaClient, runId: string): Promise<string[]> {
  return (await taggedFunctions(lambda)).filter(([, id]) => id === runId).map(([name]) => name);
}

/** Deletes the run's tagged functions and the recorded one (its URL configuration and policy go with it). */
async function deleteRunFunctions(lambda: LambdaClient, runId: string, recorded?: string): Promise<string[]> {
  const names = new Set(await findRunFunctions(lambda, runId));
  if (recorded) names.add(recorded);
  for (const name of names)
    await lambda.send(new DeleteFunctionCommand({ FunctionName: name })).catch((err: unknown) => {
      if (!(err instanceof Error && err.name === "ResourceNotFoundException")) throw err;
    });
  return [...names];
}

async function teardown(dep: { state: Partial<AwsLambdaState> }, ctx: ProviderContext): Promise<void> {
  const { state } = dep;
  if (!state.region || !state.credential) return;
  const lambda = await client(ctx, { region: state.region, credential: state.credential });
  try {
    ctx.log("aws-lambda functions deleted", { functions: await deleteRunFunctions(lambda, ctx.runId, state.functionName) });
  } finally {
    lambda.destroy();
  }
}

/** A Lambda client for the reaper, closed after fn. */
async function withReaperLambda<T>(ctx: ReaperContext, fn: (lambda: LambdaClient) => Promise<T>): Promise<T> {
  const lambda = new LambdaClient(await reaperAwsSession(ctx));
  try {
    return await fn(lambda);
  } finally {
    lambda.destroy();
  }
}

export const awsLambda: KindProvider<"aws-lambda", AwsLambdaState> = {
  kind: "aws-lambda",
  spec: awsLambdaSpec,
  deploy,
  reset,
  observe,
  teardown,
  ...cloudEndpoint,
  // Tagged functions in the credential's region.
  reaper: {
    listRuns: (ctx) => withReaperLambda(ctx, async (lambda) => [...new Set((await taggedFunctions(lambda)).map(([, id]) => id))]),
    deleteRun: (runId, ctx) => withReaperLambda(ctx, async (lambda) => void (await deleteRunFunctions(lambda, runId))),
  },
};
