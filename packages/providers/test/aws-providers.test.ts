// aws-asg and aws-lambda against moto's server mode on loopback, with the real SDK
// clients: what deploy creates (tagged), the baseline, CloudWatch series read back at
// their 60 s resolution, teardown by tag, and a wrong key refused before anything exists.
import { execFileSync } from "node:child_process";
import http from "node:http";
import { createHash, createHmac } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CloudWatchClient, PutMetricDataCommand, type MetricDatum } from "@aws-sdk/client-cloudwatch";
import { SignatureV4 } from "@smithy/signature-v4";
import { DescribeImagesCommand, DescribeLaunchTemplateVersionsCommand, EC2Client } from "@aws-sdk/client-ec2";
import { targetInput } from "@opsbench/core";
import { LambdaClient, ListFunctionsCommand, GetFunctionCommand } from "@aws-sdk/client-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMoto, type Moto } from "../../../tests/moto";
import { awsAsg, awsLambda, type InfraPoint, type ProviderContext } from "../src";
import { findRunFunctions } from "../src/aws-lambda";
import { userDataOf } from "../src/aws-asg";
import { findAsgResources } from "../src/aws-asg/resources";
import { instanceArchitecture } from "../src/aws-asg/user-data";
import { checkAwsCredential } from "../src/aws/check-credential";
import { extendedValue } from "../src/aws/cloudwatch-periods";
import { zipFiles } from "../src/aws-lambda/function-zip";
import { testContext } from "./provider-context";

let moto: Moto;
beforeAll(async () => {
  moto = await startMoto();
});
afterAll(() => moto?.stop());

const REGION = "us-east-1";
const infra = path.resolve(import.meta.dirname, "../../../infra");
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
        { MetricName: "ConsumedLCUs", Dimensions: lb, Timestamp: now, Value: 1.5 },
      ],
      "AWS/ApplicationELB",
    );
    // Through a proxy that records each request's body, to see the p99 asked for.
    const proxy = await recordingProxy(moto.url);
    const points = await observeFor((w) => awsAsg.observe(dep, w, { ...ctx, endpoints: { aws: proxy.url } }), 500);
    await proxy.close();
    const p99Asked = proxy.bodies.filter((b) => b.includes("ExtendedStatistics") && b.includes("p99") && b.includes("CPUUtilization"));
    expect(p99Asked.length).toBeGreaterThan(0);
    expect(points).toHaveLength(1);
    const p = points[0]!;
    // Stamped at the middle of its 60 s period.
    expect(p.ts.getTime() % 60_000).toBe(30_000);
    expect(p.replicas).toBe(2);
    expect(p.cpuPercent).toBeCloseTo(71.5, 5);
    expect(p.detail).toMatchObject({
      kind: "aws-asg",
      resolutionSeconds: 60,
      desired: 3,
      // moto ignores ExtendedStatistics (its GetMetricStatistics answers without them): the p99 stays empty here.
      platform: { requests: 600, http2xx: 590, consumedLcus: 1.5, cpuPercentP99: null },
      totals: { instanceSeconds: 120, requests: 600, lcuHours: 0.025 },
    });
    // What AWS answers carries the percentile under ExtendedStatistics (the shape of the SDK's Datapoint).
    expect(extendedValue({ Timestamp: now, ExtendedStatistics: { p99: 97.5 } }, "p99")).toBe(97.5);
    expect(extendedValue({ Timestamp: now, Average: 50 }, "p99")).toBeNull();

    // Teardown from the region and credential alone (no recorded ids): found by tag.
    await awsAsg.teardown({ state: { region: REGION, credential: "test-aws" } }, ctx);
    expect(await findAsgResources(session(), ctx.runId)).toEqual({
      autoScalingGroups: [],
      loadBalancers: [],
      targetGroups: [],
      launchTemplates: [],
    });
  });

  it("the study 002 preset runs its container from user data: the rendered script is what EC2 stores, valid bash, and starts the image", async () => {
    const preset = targetInput.parse(JSON.parse(readFileSync(path.join(infra, "targets/asg-target-tracking-70.json"), "utf8")));
    if (preset.kind !== "aws-asg") throw new Error(preset.kind);
    const { ctx, events } = awsContext();
    const spec = awsAsg.spec.parse({
      ...preset.spec,
      credential: "test-aws",
      container: { ...preset.spec.container!, env: { GREETING: "it's $HOME `x`", EMPTY: "" } },
      endpointUrl: "http://127.0.0.1:9",
      metrics: quickMetrics,
    });
    const dep = await awsAsg.deploy(spec, ctx);
    try {
      const ec2 = new EC2Client(session());
      const v = await ec2.send(new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateName: dep.state.launchTemplateName }));
      const data = v.LaunchTemplateVersions?.[0]?.LaunchTemplateData;
      const userData = Buffer.from(data?.UserData ?? "", "base64").toString("utf8");
      expect(userData).toBe(userDataOf(spec, ctx.runId));
      expect(userData).toContain(
        "docker run -d --name opsbench-app --restart always -p 80:8080 --env-file /etc/opsbench-app.env 'opsbench/cpu-loop-node-http:latest'",
      );
      // No imageId in the preset: the region's newest Amazon Linux 2023 of the instance type's architecture (moto ships some).
      const images = await ec2.send(new DescribeImagesCommand({ ImageIds: [data?.ImageId ?? ""] }));
      expect(images.Images?.[0]?.Name).toMatch(/^al2023-ami-2023\..*-x86_64$/);
      expect(data?.InstanceType).toBe("t3.medium");
      ec2.destroy();
      expect(events.some((e) => e.message.includes("running opsbench/cpu-loop-node-http:latest"))).toBe(true);

      // bash -n, then the script itself with docker, dnf and systemctl as stubs that log their arguments, /etc a tmpfs.
      const dir = mkdtempSync(path.join(tmpdir(), "opsbench-userdata-"));
      try {
        writeFileSync(path.join(dir, "user-data.sh"), userData);
        execFileSync("bash", ["-n", path.join(dir, "user-data.sh")]);
        const bin = path.join(dir, "bin");
        execFileSync("mkdir", [bin]);
        for (const cmd of ["docker", "systemctl"]) {
          writeFileSync(path.join(bin, cmd), `#!/bin/bash\necho "${cmd} $*" >> ${dir}/calls\n`);
          chmodSync(path.join(bin, cmd), 0o755);
        }
        execFileSync("bwrap", [
          "--bind",
          "/",
          "/",
          "--tmpfs",
          "/etc",
          "--dev",
          "/dev",
          "--proc",
          "/proc",
          "bash",
          "-c",
          `PATH=${bin}:/usr/bin:/bin bash ${dir}/user-data.sh && cp /etc/opsbench-app.env ${dir}/env && stat -c %a /etc/opsbench-app.env > ${dir}/mode`,
        ]);
        expect(readFileSync(path.join(dir, "calls"), "utf8").trim().split("\n")).toEqual([
          "systemctl enable --now docker",
          "docker pull opsbench/cpu-loop-node-http:latest",
          "docker rm -f opsbench-app",
          "docker run -d --name opsbench-app --restart always -p 80:8080 --env-file /etc/opsbench-app.env opsbench/cpu-loop-node-http:latest",
        ]);
        // Values go into the env file as they are: nothing expanded by the shell.
        expect(readFileSync(path.join(dir, "env"), "utf8")).toBe("PORT=8080\nGREETING=it's $HOME `x`\nEMPTY=\n");
        expect(readFileSync(path.join(dir, "mode"), "utf8").trim()).toBe("600");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    } finally {
      await awsAsg.teardown(dep, ctx);
    }
    expect(instanceArchitecture("t4g.small")).toBe("arm64");
    expect(instanceArchitecture("g4dn.xlarge")).toBe("x86_64");
    expect(() => awsAsg.spec.parse({ ...spec, userData: "#!/bin/sh" })).toThrow(/give either userData .* or container/);
    expect(() => awsAsg.spec.parse({ ...spec, container: { image: "x:1", env: { A: "a\nb" } } })).toThrow(/line break/);
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

/** An S3 object in moto, put with a SigV4-signed request (the repo has no S3 client; Lambda reads the object from moto's S3). */
async function putS3Object(bucket: string, key: string, body: Buffer) {
  class Sha256 {
    private h;
    constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
      this.h = secret ? createHmac("sha256", bytes(secret)) : createHash("sha256");
    }
    update(d: string | ArrayBuffer | ArrayBufferView) {
      this.h.update(bytes(d));
    }
    async digest() {
      return new Uint8Array(this.h.digest());
    }
  }
  const bytes = (d: string | ArrayBuffer | ArrayBufferView) =>
    typeof d === "string" ? d : d instanceof ArrayBuffer ? new Uint8Array(d) : new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
  const signer = new SignatureV4({ service: "s3", region: REGION, credentials: credential(), sha256: Sha256 });
  const url = new URL(moto.url);
  for (const [path, data] of [
    [`/${bucket}`, undefined],
    [`/${bucket}/${key}`, body],
  ] as const) {
    const signed = await signer.sign({
      method: "PUT",
      protocol: "http:",
      hostname: url.hostname,
      port: Number(url.port),
      path,
      query: {},
      headers: {
        host: url.host,
        "x-amz-content-sha256": createHash("sha256")
          .update(data ?? "")
          .digest("hex"),
      },
      body: data,
    });
    const r = await fetch(`${moto.url}${path}`, { method: "PUT", headers: signed.headers, body: data ? new Uint8Array(data) : undefined });
    if (!r.ok) throw new Error(`moto S3 PUT ${path}: ${r.status} ${await r.text()}`);
  }
}

describe("aws-lambda: your own package", () => {
  const handler = Buffer.from('export const handler = async () => ({ statusCode: 200, body: "mine" });\n');
  const zip = zipFiles([{ name: "src/app.mjs", data: handler }]);
  const sha = (b: Buffer) => createHash("sha256").update(b).digest("base64");

  it("the echo preset deploys; a zip uploaded with the spec and an S3 object become the function's code, with their handler", async () => {
    const preset = targetInput.parse(JSON.parse(readFileSync(path.join(infra, "targets/lambda-echo.json"), "utf8")));
    if (preset.kind !== "aws-lambda") throw new Error(preset.kind);
    const lambda = new LambdaClient(session());
    const bucket = `opsbench-pkg-${crypto.randomUUID().slice(0, 8)}`;
    await putS3Object(bucket, "builds/app.zip", zip);
    const cases = [
      { spec: preset.spec, handler: "index.handler", size: undefined, label: "echo/lambda" },
      {
        spec: { ...preset.spec, app: undefined, code: { zipBase64: zip.toString("base64") }, handler: "src/app.handler" },
        handler: "src/app.handler",
        size: zip.length,
        label: "your zip (0 KiB)",
      },
      {
        spec: { ...preset.spec, app: undefined, code: { s3Bucket: bucket, s3Key: "builds/app.zip" }, handler: "src/app.handler" },
        handler: "src/app.handler",
        size: zip.length,
        label: `s3://${bucket}/builds/app.zip`,
      },
    ];
    for (const c of cases) {
      const { ctx, events } = awsContext();
      const spec = awsLambda.spec.parse({
        ...c.spec,
        credential: "test-aws",
        roleArn: moto.lambdaRoleArn,
        endpointUrl: "http://127.0.0.1:9",
      });
      const dep = await awsLambda.deploy(spec, ctx);
      try {
        const fn = await lambda.send(new GetFunctionCommand({ FunctionName: dep.state.functionName }));
        expect(fn.Configuration).toMatchObject({ Handler: c.handler, Runtime: "nodejs22.x", MemorySize: 128, Timeout: 10 });
        if (c.size !== undefined) expect(fn.Configuration).toMatchObject({ CodeSize: c.size, CodeSha256: sha(zip) });
        expect(
          events.some((e) => e.message.includes(`created from ${c.label}`)),
          JSON.stringify(events),
        ).toBe(true);
      } finally {
        await awsLambda.teardown(dep, ctx);
      }
    }
    lambda.destroy();
  });

  it("refuses a package that is not a zip, app and code together; a missing S3 object is named and nothing is left", async () => {
    const base = { credential: "test-aws", region: REGION, roleArn: moto.lambdaRoleArn };
    expect(() => awsLambda.spec.parse({ ...base, code: { zipBase64: Buffer.from("not a zip").toString("base64") } })).toThrow(
      /not a zip file/,
    );
    expect(() => awsLambda.spec.parse({ ...base, app: "echo/lambda", code: { zipBase64: zip.toString("base64") } })).toThrow(
      /give either app .* or code/,
    );
    const { ctx } = awsContext();
    const spec = awsLambda.spec.parse({ ...base, code: { s3Bucket: "opsbench-none-such", s3Key: "x.zip" } });
    await expect(awsLambda.deploy(spec, ctx)).rejects.toThrow(/creating the Lambda function failed: .*NoSuchBucket/);
    await awsLambda.teardown({ state: { region: REGION, credential: "test-aws" } }, ctx);
    const lambda = new LambdaClient(session());
    expect(await findRunFunctions(lambda, ctx.runId)).toEqual([]);
    lambda.destroy();
  });
});

/** A loopback proxy to moto that keeps each request's body (the request goes on unchanged, Host included, so its signature holds). */
async function recordingProxy(target: string): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      bodies.push(`${req.headers["x-amz-target"] ?? ""} ${body.toString("latin1")}`);
      const out = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      out.on("error", () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, bodies, close: () => new Promise<void>((r) => server.close(() => r())) };
}
