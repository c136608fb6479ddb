// The cloud kinds through the worker: aws-asg and aws-lambda against moto, gcp-cloud-run against the
// fake Google APIs (tests/fakes/gcp-apis.ts). Each run deploys, waits for the baseline, sends its load
// to a local stand-in of the app (the echo benchapp on loopback: the platforms' addresses resolve
// nowhere here), reads the platform's series back, and tears down; afterwards nothing of the run is left.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { CloudWatchClient, PutMetricDataCommand, type MetricDatum } from "@aws-sdk/client-cloudwatch";
import { ListFunctionsCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { cloudResourceName, type CredentialSecret, targetInput, workloadSpec } from "@opsbench/core";
import { findAsgResources } from "@opsbench/providers";
import { createCredentialChecker } from "@opsbench/jobs";
import { startRun } from "@opsbench/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putCloudRunSeries, serviceAccountKey, startGcpFake, type GcpFake } from "../../../tests/fakes/gcp-apis";
import { openTestStack, shortRamp, testRedisUrl, testSecretKey, waitForFinal } from "../../../tests/helpers";
import { motoSession, noAsgResources, putAsgTarget, startMoto, type Moto } from "../../../tests/moto";
import { freePort, waitForPort } from "../../../tests/ports";

const REGION = "us-east-1";
const PROJECT = "opsbench-test";
let stack: Awaited<ReturnType<typeof openTestStack>>;
let moto: Moto;
let gcp: GcpFake;
let gcpKey: ReturnType<typeof serviceAccountKey>;
let standIn: ChildProcess;
let standInUrl: string;

const aws = (): CredentialSecret => ({ kind: "aws", accessKeyId: moto.accessKeyId, secretAccessKey: moto.secretAccessKey, region: REGION });
const gcpSecret = () => ({ kind: "gcp" as const, serviceAccountKey: gcpKey.json, projectId: PROJECT, region: "europe-west1" });
const awsSession = () => motoSession(moto, REGION);
const quickMetrics = { settleSeconds: 0, waitSeconds: 5, pollSeconds: 1 };

beforeAll(async () => {
  [moto, gcp] = await Promise.all([startMoto(), startGcpFake()]);
  gcpKey = serviceAccountKey(PROJECT);
  gcp.trust(gcpKey.email, gcpKey.publicKeyPem);
  // The worker takes its API stand-ins from its environment only (it inherits this process's).
  process.env.OPSBENCH_AWS_ENDPOINT_URL = moto.url;
  process.env.OPSBENCH_GCP_ENDPOINT_URL = gcp.url;
  const port = await freePort();
  standIn = spawn(process.execPath, [path.resolve(import.meta.dirname, "../../../benchapps/echo/node/server.js")], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST: "127.0.0.1" },
    stdio: "ignore",
  });
  await waitForPort(port);
  standInUrl = `http://127.0.0.1:${port}`;
  stack = await openTestStack();
  for (const [name, secret] of [
    ["aws-test", aws()],
    ["gcp-test", gcpSecret()],
  ] as const)
    await stack.scope.credentials.save({
      name,
      kind: secret.kind,
      sealed: stack.scope.credentials.seal(name, secret, testSecretKey()),
      checkedAt: new Date(),
    });
  await stack.scope.workloads.put({ ...shortRamp("echo-ramp", { vus: 2, holdSeconds: 2, path: "/?input=x" }) });
});
afterAll(async () => {
  standIn?.kill();
  await stack?.close();
  await Promise.all([moto?.stop(), gcp?.stop()]);
});

async function putMetrics(namespace: string, data: MetricDatum[]) {
  const cw = new CloudWatchClient(awsSession());
  await cw.send(new PutMetricDataCommand({ Namespace: namespace, MetricData: data }));
  cw.destroy();
}

/** This minute and the next two: the run's load window falls in them. */
const minutes = () => {
  const now = Math.floor(Date.now() / 60_000) * 60_000;
  return [0, 1, 2].map((i) => new Date(now + i * 60_000));
};

async function platformPoints(runId: string) {
  const rows = await stack.db.infraPoint.findMany({ where: { runId }, orderBy: { ts: "asc" } });
  return rows.map((r) => ({ ts: r.ts, replicas: r.replicas, cpuPercent: r.cpuPercent, detail: r.detail as Record<string, unknown> }));
}

describe("cloud targets through the worker", () => {
  it("checks aws and gcp credentials when saved: a good one passes, a wrong one is refused by name without the secret", async () => {
    const checker = createCredentialChecker(testRedisUrl());
    try {
      const check = (name: string, secret: CredentialSecret) =>
        checker.check({ workspaceId: stack.scope.workspaceId, name, sealed: stack.scope.credentials.seal(name, secret, testSecretKey()) });
      expect(await check("a", aws())).toEqual({ ok: true, identity: expect.stringContaining("user/opsbench-test") });
      const wrongAws = await check("b", { ...aws(), kind: "aws", secretAccessKey: "not-the-secret-0000" } as CredentialSecret);
      expect(wrongAws).toEqual({ ok: false, message: expect.stringMatching(/AWS credential is refused by STS GetCallerIdentity/) });
      expect(JSON.stringify(wrongAws)).not.toContain("not-the-secret-0000");
      expect(await check("c", gcpSecret())).toEqual({ ok: true, identity: `${gcpKey.email} (${PROJECT})` });
      const stranger = serviceAccountKey(PROJECT, "stranger@opsbench-test.iam.gserviceaccount.com");
      const wrongGcp = await check("d", { ...gcpSecret(), serviceAccountKey: stranger.json });
      expect(wrongGcp).toEqual({ ok: false, message: expect.stringMatching(/Google Cloud credential is refused by Cloud Run/) });
      expect(JSON.stringify(wrongGcp)).not.toContain("PRIVATE KEY");
    } finally {
      await checker.close();
    }
  });

  it("aws-asg: SUCCEEDED with CloudWatch series on its timeline, then no tagged resource left", async () => {
    await putAsgTarget(stack.scope, "asg", {
      credential: "aws-test",
      region: REGION,
      minSize: 2,
      maxSize: 4,
      endpointUrl: standInUrl,
      metrics: quickMetrics,
    });
    const run = await startRun(stack.scope, stack.queue, { targetName: "asg", workloadName: "echo-ramp" });
    const group = [{ Name: "AutoScalingGroupName", Value: cloudResourceName(run.id) }];
    for (const Timestamp of minutes()) {
      await putMetrics("AWS/AutoScaling", [{ MetricName: "GroupInServiceInstances", Dimensions: group, Timestamp, Value: 2 }]);
      await putMetrics("AWS/EC2", [{ MetricName: "CPUUtilization", Dimensions: group, Timestamp, Value: 35 }]);
    }
    const view = await waitForFinal(stack.db, run.id);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.summary!.requests).toBeGreaterThan(0);
    const points = await platformPoints(run.id);
    expect(points.length).toBeGreaterThanOrEqual(1);
    for (const p of points) {
      // Stamped at the middle of its 60 s period (the period starts on a whole minute).
      expect(p.ts.getTime() % 60_000).toBe(30_000);
      expect(p).toMatchObject({ replicas: 2, cpuPercent: 35, detail: { kind: "aws-asg", resolutionSeconds: 60 } });
    }
    expect(await findAsgResources(awsSession(), run.id)).toEqual(noAsgResources);
  });

  it("aws-lambda: SUCCEEDED with Lambda series, priced from the platform's billed duration, function gone", async () => {
    await stack.scope.targets.put(
      targetInput.parse({
        name: "lambda",
        kind: "aws-lambda",
        spec: {
          credential: "aws-test",
          region: REGION,
          memoryMb: 512,
          roleArn: moto.lambdaRoleArn,
          endpointUrl: standInUrl,
          metrics: quickMetrics,
          costModel: { kind: "pay-per-use", unit: "USD", pricePerRequest: 2e-7, pricePerGibSecond: 1.66667e-5, memoryGib: 0.5 },
        },
      }),
    );
    const run = await startRun(stack.scope, stack.queue, { targetName: "lambda", workloadName: "echo-ramp" });
    const fn = [{ Name: "FunctionName", Value: cloudResourceName(run.id) }];
    for (const Timestamp of minutes()) {
      await putMetrics("AWS/Lambda", [
        { MetricName: "Invocations", Dimensions: fn, Timestamp, Value: 100 },
        { MetricName: "Duration", Dimensions: fn, Timestamp, Value: 4000 },
        { MetricName: "ConcurrentExecutions", Dimensions: fn, Timestamp, Value: 3 },
      ]);
    }
    const view = await waitForFinal(stack.db, run.id);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    const points = await platformPoints(run.id);
    expect(points.length).toBeGreaterThanOrEqual(1);
    expect(points[0]).toMatchObject({ replicas: 3, detail: { kind: "aws-lambda", resolutionSeconds: 60, platform: { invocations: 100 } } });
    // Priced from Lambda's own Duration sum (4 s a period), not from k6's latencies.
    const cost = view.summary!.cost!;
    expect(cost.notes.join(" ")).toMatch(/aws-lambda's metrics reported it: \d+ s/);
    const memory = cost.lines.find((l) => l.key === "memory")!;
    expect(memory.used).toBeCloseTo(4 * points.length * 0.5, 6);
    const lambda = new LambdaClient(awsSession());
    const left = await lambda.send(new ListFunctionsCommand({}));
    lambda.destroy();
    expect((left.Functions ?? []).map((f) => f.FunctionName)).not.toContain(cloudResourceName(run.id));
  });

  it("gcp-cloud-run: SUCCEEDED with Cloud Monitoring series, service gone", async () => {
    await stack.scope.targets.put(
      targetInput.parse({
        name: "cloud-run",
        kind: "gcp-cloud-run",
        spec: {
          credential: "gcp-test",
          region: "europe-west1",
          image: "gcr.io/opsbench/echo:1",
          concurrency: 100,
          memoryMb: 256,
          endpointUrl: standInUrl,
          metrics: quickMetrics,
        },
      }),
    );
    const run = await startRun(stack.scope, stack.queue, { targetName: "cloud-run", workloadName: "echo-ramp" });
    for (const minute of minutes())
      await putCloudRunSeries(gcp.url, gcpSecret(), cloudResourceName(run.id), minute, [
        { type: "run.googleapis.com/request_count", labels: { response_code_class: "2xx" }, value: { int64Value: 700 } },
        { type: "run.googleapis.com/container/instance_count", labels: { state: "active" }, value: { int64Value: 2 } },
        { type: "run.googleapis.com/container/billable_instance_time", value: { doubleValue: 90 } },
      ]);
    const view = await waitForFinal(stack.db, run.id);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    const points = await platformPoints(run.id);
    expect(points.length).toBeGreaterThanOrEqual(1);
    expect(points[0]).toMatchObject({ replicas: 2, detail: { kind: "gcp-cloud-run", resolutionSeconds: 60, platform: { requests: 700 } } });
    expect([...gcp.services.keys()].filter((n) => n.endsWith(cloudResourceName(run.id)))).toEqual([]);
  });

  it("endpoint linked to an existing Auto Scaling group and to a Cloud Run service: SUCCEEDED with their platform series, nothing made", async () => {
    const linked = async (name: string, linked: Record<string, unknown>, put: () => Promise<void>) => {
      await stack.scope.targets.put(targetInput.parse({ name, kind: "endpoint", spec: { url: standInUrl, linked } }));
      const run = await startRun(stack.scope, stack.queue, { targetName: name, workloadName: "echo-ramp" });
      await put();
      const view = await waitForFinal(stack.db, run.id);
      expect(view.error).toBeNull();
      expect(view.status).toBe("SUCCEEDED");
      return { runId: run.id, points: await platformPoints(run.id) };
    };
    // Metrics of resources opsbench did not make (named by the user, not by the run).
    const group = [{ Name: "AutoScalingGroupName", Value: "shop-asg" }];
    const asg = await linked(
      "linked-asg",
      { credential: "aws-test", autoScalingGroupName: "shop-asg", region: REGION, metrics: quickMetrics },
      async () => {
        for (const Timestamp of minutes()) {
          await putMetrics("AWS/AutoScaling", [{ MetricName: "GroupInServiceInstances", Dimensions: group, Timestamp, Value: 3 }]);
          await putMetrics("AWS/EC2", [{ MetricName: "CPUUtilization", Dimensions: group, Timestamp, Value: 61 }]);
        }
      },
    );
    expect(asg.points.length).toBeGreaterThanOrEqual(1);
    for (const p of asg.points)
      expect(p).toMatchObject({ replicas: 3, cpuPercent: 61, detail: { kind: "aws-asg", resolutionSeconds: 60 } });
    expect(await findAsgResources(awsSession(), asg.runId)).toEqual(noAsgResources);

    const run = await linked(
      "linked-cloud-run",
      { credential: "gcp-test", cloudRunService: "shop", region: "europe-west1", metrics: quickMetrics },
      async () => {
        for (const minute of minutes())
          await putCloudRunSeries(gcp.url, gcpSecret(), "shop", minute, [
            { type: "run.googleapis.com/request_count", labels: { response_code_class: "2xx" }, value: { int64Value: 420 } },
            { type: "run.googleapis.com/container/instance_count", labels: { state: "active" }, value: { int64Value: 5 } },
          ]);
      },
    );
    expect(run.points.length).toBeGreaterThanOrEqual(1);
    expect(run.points[0]).toMatchObject({
      replicas: 5,
      detail: { kind: "gcp-cloud-run", resolutionSeconds: 60, platform: { requests: 420 } },
    });
    expect([...gcp.services.keys()].filter((n) => n.endsWith(cloudResourceName(run.runId)))).toEqual([]);
  });

  it("an endpoint's link names its platform: a link with no resource, or two, is refused naming the fields", () => {
    const spec = (linked: Record<string, unknown>) =>
      targetInput.safeParse({ name: "e", kind: "endpoint", spec: { url: standInUrl, linked } });
    expect(spec({ credential: "aws-test" }).error?.issues[0]?.message).toMatch(/a link names what to observe/);
    expect(
      spec({ credential: "aws-test", autoScalingGroupName: "a", cloudRunService: "b", region: REGION }).error?.issues[0]?.message,
    ).toBe("a link observes one thing; it names autoScalingGroupName and cloudRunService");
    expect(spec({ credential: "aws-test", autoScalingGroupName: "a" }).error?.issues[0]?.message).toBe(
      "give the region of the group or service",
    );
  });

  it("a failure forced after deploy leaves no tagged AWS resource and no Cloud Run service", async () => {
    await stack.scope.workloads.put({
      name: "fails",
      spec: workloadSpec.parse({
        kind: "script",
        source:
          // Thrown in setup(): past script validation (k6 inspect does not run it), so the failure comes after deploy.
          'export function setup() { throw new Error("forced failure after deploy"); }\nexport default function () {}',
      }),
    });
    const runs = [];
    for (const target of ["asg", "lambda", "cloud-run"]) {
      const run = await startRun(stack.scope, stack.queue, { targetName: target, workloadName: "fails" });
      const view = await waitForFinal(stack.db, run.id);
      expect(view.status).toBe("FAILED");
      expect(view.error).toMatch(/k6 exited with code/);
      runs.push(run.id);
    }
    const [asgRun, lambdaRun, runRun] = runs as [string, string, string];
    expect(await stack.db.runStep.findFirst({ where: { runId: asgRun, name: "PROVISION" } })).toMatchObject({ status: "SUCCEEDED" });
    expect(await findAsgResources(awsSession(), asgRun)).toEqual(noAsgResources);
    const lambda = new LambdaClient(awsSession());
    const left = await lambda.send(new ListFunctionsCommand({}));
    lambda.destroy();
    expect((left.Functions ?? []).map((f) => f.FunctionName)).not.toContain(cloudResourceName(lambdaRun));
    expect([...gcp.services.keys()].filter((n) => n.endsWith(cloudResourceName(runRun)))).toEqual([]);
    expect(gcp.calls.get("services.delete")).toBeGreaterThanOrEqual(2);
  });
});
