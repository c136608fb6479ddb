// aws-asg and aws-lambda against moto's server mode on loopback, with the real SDK
// clients: what deploy creates (tagged), the baseline, CloudWatch series read back at
// their 60 s resolution, teardown by tag, and a wrong key refused before anything exists.
import { CloudWatchClient, PutMetricDataCommand, type MetricDatum } from "@aws-sdk/client-cloudwatch";
import { LambdaClient, ListFunctionsCommand, GetFunctionCommand } from "@aws-sdk/client-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMoto, type Moto } from "../../../tests/moto";
import { awsAsg, awsLambda, type InfraPoint, type ProviderContext } from "../src";
import { findAsgResources } from "../src/aws-asg/resources";
import { checkAwsCredential } from "../src/aws/check-credential";
import { testContext } from "./provider-context";

let moto: Moto;
beforeAll(async () => {
  moto = await startMoto();
});
afterAll(() => moto?.stop());

const REGION = "us-east-1";
const credential = () => ({ kind: "aws" as const, accessKeyId: moto.accessKeyId, secretAccessKey: moto.secretAccessKey, region: REGION });
const session = () => ({ region: REGION, endpoint: moto.url, credentials: credential(), maxAttempts: 1 });

function awsContext(secret = credential(), runId = crypto.randomUUID()) {
  const t = testContext();
  const logs: string[] = [];
  const ctx: ProviderContext = {
    ...t.ctx,
    runId,
    credential: secret,
    endpoints: { aws: moto.url },
    log: (msg, data) => void logs.push(`${msg} ${JSON.stringify(data ?? {})}`),
  };
  return { ...t, ctx, logs };
}

async function putMetrics(data: MetricDatum[], namespace: string) {
  const cw = new CloudWatchClient(session());
  await cw.send(new PutMetricDataCommand({ Namespace: namespace, MetricData: data }));
  cw.destroy();
}

/** Observes for `ms`, then lets the provider fetch the window's periods again. */
async function observeFor(observe: (w: { signal: AbortSignal }) => AsyncIterable<InfraPoint>, ms: number): Promise<InfraPoint[]> {
  const window = new AbortController();
  setTimeout(() => window.abort(), ms);
  const points: InfraPoint[] = [];
  for await (const p of observe({ signal: window.signal })) points.push(p);
  return points;
}

const quickMetrics = { settleSeconds: 0, waitSeconds: 5, pollSeconds: 1 };

describe("aws-asg on moto", () => {
  it("creates a tagged launch template, ALB, target group and group; reads CloudWatch back; deletes by tag", async () => {
    const { ctx, states } = awsContext();
    const spec = awsAsg.spec.parse({
      credential: "test-aws",
      region: REGION,
      imageId: "ami-12c6146b",
      minSize: 2,
      maxSize: 4,
      endpointUrl: "http://127.0.0.1:9/",
      metrics: quickMetrics,
    });
    const dep = await awsAsg.deploy(spec, ctx);
    expect(dep.endpoint).toBe("http://127.0.0.1:9/");
    expect(states.length).toBeGreaterThan(3);
    const made = await findAsgResources(session(), ctx.runId);
    expect(made.autoScalingGroups).toEqual([dep.state.autoScalingGroupName]);
    expect(made.loadBalancers).toEqual([dep.state.loadBalancerArn]);
    expect(made.targetGroups).toEqual([dep.state.targetGroupArn]);
    expect(made.launchTemplates).toEqual([dep.state.launchTemplateName]);
    await awsAsg.reset(dep, ctx);

    const group = [{ Name: "AutoScalingGroupName", Value: dep.state.autoScalingGroupName! }];
    const lb = [{ Name: "LoadBalancer", Value: dep.state.loadBalancerDimension! }];
    const now = new Date();
    await putMetrics(
      [
        { MetricName: "GroupInServiceInstances", Dimensions: group, Timestamp: now, Value: 2 },
        { MetricName: "GroupDesiredCapacity", Dimensions: group, Timestamp: now, Value: 3 },
      ],
      "AWS/AutoScaling",
    );
    await putMetrics([{ MetricName: "CPUUtilization", Dimensions: group, Timestamp: now, Value: 71.5 }], "AWS/EC2");
    await putMetrics(
      [
        { MetricName: "RequestCount", Dimensions: lb, Timestamp: now, Value: 600 },
        { MetricName: "HTTPCode_Target_2XX_Count", Dimensions: lb, Timestamp: now, Value: 590 },
      ],
      "AWS/ApplicationELB",
    );
    const points = await observeFor((w) => awsAsg.observe(dep, w, ctx), 500);
    expect(points).toHaveLength(1);
    const p = points[0]!;
    expect(p.ts.getTime() % 60_000).toBe(0);
    expect(p.replicas).toBe(2);
    expect(p.cpuPercent).toBeCloseTo(71.5, 5);
    expect(p.detail).toMatchObject({
      kind: "aws-asg",
      resolutionSeconds: 60,
      desired: 3,
      platform: { requests: 600, http2xx: 590 },
      totals: { instanceSeconds: 120, requests: 600 },
    });

    // Teardown from the region and credential alone (no recorded ids): found by tag.
    await awsAsg.teardown({ state: { region: REGION, credential: "test-aws" } }, ctx);
    expect(await findAsgResources(session(), ctx.runId)).toEqual({
      autoScalingGroups: [],
      loadBalancers: [],
      targetGroups: [],
      launchTemplates: [],
    });
  });

  it("refuses a wrong key before creating anything, naming the credential and not the secret", async () => {
    const wrong = { ...credential(), secretAccessKey: "wrong-secret-value-1234" };
    const { ctx, states } = awsContext(wrong);
    const spec = awsAsg.spec.parse({ credential: "prod-aws", region: REGION, imageId: "ami-12c6146b" });
    const err = await awsAsg.deploy(spec, ctx).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/AWS credential "prod-aws" is refused by STS GetCallerIdentity/);
    expect(err?.message).not.toContain("wrong-secret-value-1234");
    expect(states).toEqual([]);
    await expect(checkAwsCredential(wrong, { name: "prod-aws", endpoint: moto.url })).rejects.toThrow(/"prod-aws" is refused/);
    await expect(checkAwsCredential(credential(), { name: "ok", endpoint: moto.url })).resolves.toMatchObject({
      identity: expect.stringContaining("opsbench-test"),
    });
    const { ctx: none } = awsContext();
    await expect(awsAsg.deploy(spec, { ...none, credential: undefined })).rejects.toThrow(/credential "prod-aws" is missing/);
  });
});

describe("aws-lambda on moto", () => {
  it("creates the function with its URL and settings, reads its CloudWatch metrics, deletes it by tag", async () => {
    const { ctx, logs } = awsContext();
    const spec = awsLambda.spec.parse({
      credential: "test-aws",
      region: REGION,
      memoryMb: 256,
      timeoutSeconds: 5,
      reservedConcurrency: 10,
      roleArn: moto.lambdaRoleArn,
      endpointUrl: "http://127.0.0.1:9",
      metrics: quickMetrics,
    });
    const dep = await awsLambda.deploy(spec, ctx);
    expect(dep.state.functionUrl).toMatch(/^https:\/\//);
    const lambda = new LambdaClient(session());
    const fn = await lambda.send(new GetFunctionCommand({ FunctionName: dep.state.functionName }));
    expect(fn.Configuration).toMatchObject({ MemorySize: 256, Timeout: 5, Handler: "index.handler" });
    expect(fn.Concurrency?.ReservedConcurrentExecutions).toBe(10);
    expect(fn.Tags?.["opsbench:run"]).toBe(ctx.runId);
    await awsLambda.reset(dep, ctx);

    const dims = [{ Name: "FunctionName", Value: dep.state.functionName! }];
    const now = new Date();
    await putMetrics(
      [
        { MetricName: "Invocations", Dimensions: dims, Timestamp: now, Value: 1200 },
        {
          MetricName: "Duration",
          Dimensions: dims,
          Timestamp: now,
          StatisticValues: { SampleCount: 1200, Sum: 6000, Minimum: 2, Maximum: 40 },
        },
        { MetricName: "ConcurrentExecutions", Dimensions: dims, Timestamp: now, Value: 7 },
        { MetricName: "Throttles", Dimensions: dims, Timestamp: now, Value: 3 },
      ],
      "AWS/Lambda",
    );
    const points = await observeFor((w) => awsLambda.observe(dep, w, ctx), 500);
    expect(points, logs.join("\n")).toHaveLength(1);
    expect(points[0]!.replicas).toBe(7);
    expect(points[0]!.detail).toMatchObject({
      kind: "aws-lambda",
      resolutionSeconds: 60,
      platform: { invocations: 1200, durationMsSum: 6000, durationMsAvg: 5, throttles: 3 },
      totals: { billedMs: 6000, gbSeconds: 1.5, requests: 1200 },
    });

    await awsLambda.teardown({ state: { region: REGION, credential: "test-aws" } }, ctx);
    const left = await lambda.send(new ListFunctionsCommand({}));
    expect((left.Functions ?? []).map((f) => f.FunctionName)).not.toContain(dep.state.functionName);
    lambda.destroy();
  });
});
