// Nothing left running for the cloud kinds: a worker SIGKILLed after the PROVISION step recorded its
// state, then started again, tears the run down from that state (aws-asg and aws-lambda against moto,
// gcp-cloud-run against the fake Google APIs); and the reaper deletes what a final run has on the platform but never
// recorded, found by tag / label alone. The file starts its own worker (no file worker: its reconciler
// would end the killed run itself, and the test is about the restarted one).
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { CreateLaunchTemplateCommand, EC2Client } from "@aws-sdk/client-ec2";
import { CreateFunctionCommand, GetFunctionUrlConfigCommand, LambdaClient, ListFunctionsCommand } from "@aws-sdk/client-lambda";
import { GetResourcesCommand, ResourceGroupsTaggingAPIClient } from "@aws-sdk/client-resource-groups-tagging-api";
import { ServicesClient } from "@google-cloud/run";
import { cloudResourceName, type CredentialSecret, RUN_TAG_KEY, targetInput } from "@opsbench/core";
import { createDb, type Db, defaultWorkspaceId, workspaceScope, type WorkspaceScope } from "@opsbench/db";
import { createRunQueue, startRun, type RunQueue } from "@opsbench/jobs";
import { awsAsg, awsLambda, findAsgResources, gcpCloudRun } from "@opsbench/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceAccountKey, startGcpFake, type GcpFake } from "../../../tests/fakes/gcp-apis";
import { killWorker, startWorker, waitFor, type WorkerProcess } from "../../../tests/faults/fault-kit";
import { shortRamp, testDatabaseUrl, testRedisUrl, testSecretKey, waitForFinal } from "../../../tests/helpers";
import { MOTO_IMAGE_ID, motoSession, noAsgResources, putAsgTarget, startMoto, type Moto } from "../../../tests/moto";
import { findRunFunctions } from "../../../packages/providers/src/aws-lambda";
import { zipFiles } from "../../../packages/providers/src/aws-lambda/function-zip";
import { freePort, waitForPort } from "../../../tests/ports";
import { TEST_LOAD_ALLOWED_HOSTS } from "../../../tests/file-services";
import { makeRemoteHost, type RemoteHost, startTinyDns } from "../../../tests/remote-hosts";
import { createLogger } from "../src/logger";
import { reapOnce } from "../src/reaper";

const REGION = "us-east-1";
const PROJECT = "opsbench-test";
const GCP_REGION = "europe-west1";
let db: Db;
let scope: WorkspaceScope;
let queue: RunQueue;
let moto: Moto;
let gcp: GcpFake;
let gcpKey: ReturnType<typeof serviceAccountKey>;
let standIn: ChildProcess;
let worker: WorkerProcess | undefined;
/** A host of our own that serves nothing (a network namespace: no request leaves the machine). */
let elsewhere: RemoteHost;
/** The worker's name server: knows no name (the platforms' addresses resolve nowhere here). */
let dns: Awaited<ReturnType<typeof startTinyDns>>;

const awsSession = () => motoSession(moto, REGION);
const gcpSecret = () => ({ kind: "gcp" as const, serviceAccountKey: gcpKey.json, projectId: PROJECT, region: GCP_REGION });
const servicesOf = (runId: string) => [...gcp.services.keys()].filter((n) => n.endsWith(cloudResourceName(runId)));

/** What a run has in Lambda: its tagged functions, whether its function URL answers, and any resource tagged with it. */
async function lambdaResources(runId: string) {
  const lambda = new LambdaClient(awsSession());
  const tagging = new ResourceGroupsTaggingAPIClient(awsSession());
  try {
    const url = await lambda.send(new GetFunctionUrlConfigCommand({ FunctionName: cloudResourceName(runId) })).then(
      (r) => r.FunctionUrl ?? null,
      (err: Error) => {
        if (err.name === "ResourceNotFoundException") return null;
        throw err;
      },
    );
    const tagged = await tagging.send(new GetResourcesCommand({ TagFilters: [{ Key: RUN_TAG_KEY, Values: [runId] }] }));
    return {
      functions: await findRunFunctions(lambda, runId),
      functionUrl: url,
      tagged: (tagged.ResourceTagMappingList ?? []).map((r) => r.ResourceARN),
    };
  } finally {
    lambda.destroy();
    tagging.destroy();
  }
}

const startCloudWorker = (name: string) =>
  startWorker(name, {
    OPSBENCH_AWS_ENDPOINT_URL: moto.url,
    OPSBENCH_GCP_ENDPOINT_URL: gcp.url,
    OPSBENCH_SECRET_KEY: testSecretKey(),
    OPSBENCH_RECONCILE_SECONDS: "2",
    // The tests' loopback stand-ins (the targets' endpointUrl) stay allowed.
    OPSBENCH_LOAD_ALLOWED_HOSTS: `bench.example.com, 192.0.2.0/24, ${TEST_LOAD_ALLOWED_HOSTS}`,
    OPSBENCH_DNS_SERVERS: dns.server,
  });

beforeAll(async () => {
  [moto, gcp, elsewhere, dns] = await Promise.all([startMoto(), startGcpFake(), makeRemoteHost(), startTinyDns(() => null)]);
  gcpKey = serviceAccountKey(PROJECT);
  gcp.trust(gcpKey.email, gcpKey.publicKeyPem);
  const port = await freePort();
  standIn = spawn(process.execPath, [path.resolve(import.meta.dirname, "../../../benchapps/echo/node/server.js")], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST: "127.0.0.1" },
    stdio: "ignore",
  });
  await waitForPort(port);
  db = createDb(testDatabaseUrl(), { max: 3 });
  scope = workspaceScope(db, await defaultWorkspaceId(db));
  queue = createRunQueue(testRedisUrl());
  const aws: CredentialSecret = { kind: "aws", accessKeyId: moto.accessKeyId, secretAccessKey: moto.secretAccessKey, region: REGION };
  for (const [name, secret] of [
    ["aws-crash", aws],
    ["gcp-crash", gcpSecret()],
  ] as const)
    await scope.credentials.save({
      name,
      kind: secret.kind,
      sealed: scope.credentials.seal(name, secret, testSecretKey()),
      checkedAt: new Date(),
    });
  // Long enough that the kill always lands while the load runs.
  await scope.workloads.put(shortRamp("crash-hold", { vus: 1, holdSeconds: 120, path: "/?input=x" }));
  const endpointUrl = `http://127.0.0.1:${port}`;
  const metrics = { settleSeconds: 0, waitSeconds: 1, pollSeconds: 1 };
  await putAsgTarget(scope, "asg-crash", { credential: "aws-crash", region: REGION, minSize: 1, maxSize: 2, endpointUrl, metrics });
  await scope.targets.put(
    targetInput.parse({
      name: "cloud-run-crash",
      kind: "gcp-cloud-run",
      spec: { credential: "gcp-crash", region: GCP_REGION, image: "gcr.io/opsbench/echo:1", endpointUrl, metrics },
    }),
  );
  await scope.targets.put(
    targetInput.parse({
      name: "lambda-crash",
      kind: "aws-lambda",
      spec: { credential: "aws-crash", region: REGION, roleArn: moto.lambdaRoleArn, endpointUrl, metrics },
    }),
  );
});
afterAll(async () => {
  if (worker) await killWorker(worker, "SIGTERM");
  standIn?.kill();
  await queue?.close();
  await db?.$disconnect();
  await Promise.all([moto?.stop(), gcp?.stop(), elsewhere?.remove(), dns?.close()]);
});

/** Starts a run, waits until PROVISION recorded its state (the deploy is done), SIGKILLs the worker, starts another. */
async function killAfterDeploy(targetName: string, hasResources: (runId: string) => Promise<boolean>): Promise<string> {
  worker ??= await startCloudWorker("cloud-crash-1");
  const run = await startRun(scope, queue, { targetName, workloadName: "crash-hold" });
  await waitFor(
    `run ${run.id} to be deployed`,
    async () => {
      const step = await db.runStep.findFirst({ where: { runId: run.id, name: "PROVISION" } });
      return step?.status === "SUCCEEDED" && (step.detail as { state?: unknown } | null)?.state !== undefined;
    },
    90_000,
    200,
    worker,
  );
  expect(await hasResources(run.id)).toBe(true);
  await killWorker(worker);
  worker = await startCloudWorker(`cloud-crash-${run.id.slice(0, 8)}`);
  const view = await waitForFinal(db, run.id, 120_000);
  expect(view.status).toBe("FAILED");
  expect(view.error).toMatch(/^interrupted: the worker stopped while this run was in progress/);
  return run.id;
}

describe("cloud kinds: nothing left running", () => {
  it("the host policy: an endpointUrl on a host opsbench did not start, the admin did not allow and the workspace did not prove fails before anything is deployed", async () => {
    await putAsgTarget(scope, "asg-elsewhere", {
      credential: "aws-crash",
      region: REGION,
      minSize: 1,
      maxSize: 1,
      endpointUrl: `http://${elsewhere.address}:9`,
    });
    worker ??= await startCloudWorker("cloud-crash-1");
    const run = await startRun(scope, queue, { targetName: "asg-elsewhere", workloadName: "crash-hold" });
    const view = await waitForFinal(db, run.id, 60_000);
    expect(view.status).toBe("FAILED");
    expect(view.error).toMatch(
      new RegExp(
        `^load to ${elsewhere.address.replaceAll(".", "\\.")} refused: opsbench did not start this endpoint and \\S+ is not on the admin's allowlist ` +
          "\\(OPSBENCH_LOAD_ALLOWED_HOSTS in the worker's environment, now: bench.example.com, 192.0.2.0/24, 127.0.0.1:1024-65535, localhost:1024-65535, \\[::1\\]:1024-65535; docs/security.md\\); " +
          `and its address ${elsewhere.address.replaceAll(".", "\\.")} is in 10\\.0\\.0\\.0/8, a private or shared range, which no proof of ownership .*refused before anything was deployed$`,
      ),
    );
    const steps = await db.runStep.findMany({ where: { runId: run.id } });
    // The address was known before deploy: no PROVISION (nothing deployed), no baseline, no load, not one result.
    expect(steps.filter((s) => s.name === "PROVISION" || s.name === "BASELINE" || s.name === "LOAD")).toEqual([]);
    expect(await db.resultSecond.count({ where: { runId: run.id } })).toBe(0);
    expect(await findAsgResources(awsSession(), run.id)).toEqual(noAsgResources);
  });

  it("the host policy: a kind whose address only the deploy tells (no endpointUrl) is admitted as made for the run, but one that resolves nowhere is refused right after deploy, before one request, and torn down", async () => {
    await putAsgTarget(scope, "asg-platform-address", {
      credential: "aws-crash",
      region: REGION,
      minSize: 1,
      maxSize: 1,
      userData: "#!/bin/sh\necho payload",
    });
    worker ??= await startCloudWorker("cloud-crash-1");
    const run = await startRun(scope, queue, { targetName: "asg-platform-address", workloadName: "crash-hold" });
    const view = await waitForFinal(db, run.id, 120_000);
    expect(view.status).toBe("FAILED");
    // The ALB's address is opsbench's own for this run (no allowlist entry needed), so the deploy goes ahead; the name
    // it answered resolves nowhere here: refused before the baseline and the load, then torn down.
    expect(view.error).toMatch(/^load to \S+\.elb\.amazonaws\.com refused: it could not be resolved/);
    const steps = await db.runStep.findMany({ where: { runId: run.id } });
    expect(steps.filter((s) => s.name === "BASELINE" || s.name === "LOAD")).toEqual([]);
    expect(await db.resultSecond.count({ where: { runId: run.id } })).toBe(0);
    await waitFor("the ASG's resources to be torn down", async () =>
      JSON.stringify(await findAsgResources(awsSession(), run.id)) === JSON.stringify(noAsgResources) ? true : null,
    );
  });

  it("aws-asg: a worker SIGKILL after deploy, then restart, leaves zero tagged AWS resources", async () => {
    const runId = await killAfterDeploy(
      "asg-crash",
      async (id) => (await findAsgResources(awsSession(), id)).autoScalingGroups.length === 1,
    );
    expect(await findAsgResources(awsSession(), runId)).toEqual(noAsgResources);
  });

  it("gcp-cloud-run: a worker SIGKILL after deploy, then restart, leaves no Cloud Run service", async () => {
    const runId = await killAfterDeploy("cloud-run-crash", async (id) => servicesOf(id).length === 1);
    expect(servicesOf(runId)).toEqual([]);
  });

  it("aws-lambda: a worker SIGKILL after deploy, then restart, leaves no function, no function URL, no tagged resource", async () => {
    const runId = await killAfterDeploy("lambda-crash", async (id) => {
      const left = await lambdaResources(id);
      return left.functions.length === 1 && left.functionUrl !== null && left.tagged.length === 1;
    });
    expect(await lambdaResources(runId)).toEqual({ functions: [], functionUrl: null, tagged: [] });
  });

  it("the reaper deletes tagged resources a final run never recorded, and leaves unknown runs' alone", async () => {
    const finished = await db.run.findFirstOrThrow({ where: { workspaceId: scope.workspaceId, status: "FAILED" } });
    const stranger = "99999999-9999-4999-8999-999999999999";
    const ec2 = new EC2Client(awsSession());
    const lambda = new LambdaClient(awsSession());
    const functions = async () => ((await lambda.send(new ListFunctionsCommand({}))).Functions ?? []).map((f) => f.FunctionName);
    const run = new ServicesClient({
      credentials: { client_email: gcpKey.email, private_key: JSON.parse(gcpKey.json).private_key },
      projectId: PROJECT,
      fallback: true,
      apiEndpoint: new URL(gcp.url).hostname,
      port: Number(new URL(gcp.url).port),
      protocol: "http",
    });
    try {
      for (const id of [finished.id, stranger]) {
        const tags = [{ Key: RUN_TAG_KEY, Value: id }];
        await ec2.send(
          new CreateLaunchTemplateCommand({
            LaunchTemplateName: cloudResourceName(id),
            LaunchTemplateData: { ImageId: MOTO_IMAGE_ID },
            TagSpecifications: [{ ResourceType: "launch-template", Tags: tags }],
          }),
        );
        await lambda.send(
          new CreateFunctionCommand({
            FunctionName: cloudResourceName(id),
            Runtime: "nodejs20.x",
            Role: moto.lambdaRoleArn,
            Handler: "index.handler",
            Code: { ZipFile: zipFiles([{ name: "index.js", data: Buffer.from("exports.handler = async () => ({});") }]) },
            Tags: { [RUN_TAG_KEY]: id },
          }),
        );
        const [op] = await run.createService({
          parent: `projects/${PROJECT}/locations/${GCP_REGION}`,
          serviceId: cloudResourceName(id),
          service: { labels: { "opsbench-run": id }, template: { containers: [{ image: "gcr.io/opsbench/echo:1" }] } },
        });
        await op.promise();
      }
      expect((await findAsgResources(awsSession(), finished.id)).launchTemplates).toEqual([cloudResourceName(finished.id)]);
      expect(await functions()).toContain(cloudResourceName(finished.id));
      expect(servicesOf(finished.id)).toHaveLength(1);
      const result = await reapOnce(
        { db, log: createLogger("silent"), secretKey: testSecretKey(), endpoints: { aws: moto.url, gcp: gcp.url } },
        [awsAsg, awsLambda, gcpCloudRun],
      );
      // One deletion per reaping kind: aws-asg, aws-lambda, gcp-cloud-run.
      expect(result).toEqual({ deleted: [finished.id, finished.id, finished.id], failed: [] });
      expect(await findAsgResources(awsSession(), finished.id)).toEqual(noAsgResources);
      expect(await functions()).not.toContain(cloudResourceName(finished.id));
      expect(servicesOf(finished.id)).toEqual([]);
      expect((await findAsgResources(awsSession(), stranger)).launchTemplates).toEqual([cloudResourceName(stranger)]);
      expect(await functions()).toContain(cloudResourceName(stranger));
      expect(servicesOf(stranger)).toHaveLength(1);
    } finally {
      ec2.destroy();
      lambda.destroy();
      await run.close();
    }
  });
});
