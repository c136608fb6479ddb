// moto's server mode on loopback (PyPI moto[server], installed by `node scripts/setup.mjs --for test`
// into .tools/moto-venv), with IAM authentication on: a test user with an allow-all policy is made
// before authentication starts, so a wrong key is refused as AWS refuses it.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { targetInput } from "@opsbench/core";
import type { WorkspaceScope } from "@opsbench/db";
import { freePort, waitForPort } from "./ports";

export const motoServer = path.resolve(import.meta.dirname, "../.tools/moto-venv/bin/moto_server");

export interface Moto {
  url: string;
  /** Keys of an IAM user that may do everything. */
  accessKeyId: string;
  secretAccessKey: string;
  /** A role Lambda may assume (a function needs one). */
  lambdaRoleArn: string;
  stop(): Promise<void>;
}

// Requests made before moto starts checking signatures: CreateUser, CreateAccessKey, PutUserPolicy, CreateRole.
const SETUP_REQUESTS = 4;

async function iam(url: string, params: Record<string, string>): Promise<string> {
  const r = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      // moto routes by the signing scope of the Authorization header (the service name).
      authorization: "AWS4-HMAC-SHA256 Credential=AKIASETUP/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=0",
    },
    body: new URLSearchParams({ Version: "2010-05-08", ...params }),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`moto IAM ${params.Action}: ${r.status} ${text.slice(0, 300)}`);
  return text;
}

export async function startMoto(): Promise<Moto> {
  if (!existsSync(motoServer)) throw new Error(`${motoServer} is missing: run node scripts/setup.mjs --for test`);
  const port = await freePort();
  const child: ChildProcess = spawn(motoServer, ["-H", "127.0.0.1", "-p", String(port)], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", INITIAL_NO_AUTH_ACTION_COUNT: String(SETUP_REQUESTS) },
    stdio: "ignore",
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await waitForPort(port, 30_000);
  const url = `http://127.0.0.1:${port}`;
  await iam(url, { Action: "CreateUser", UserName: "opsbench-test" });
  const key = await iam(url, { Action: "CreateAccessKey", UserName: "opsbench-test" });
  await iam(url, {
    Action: "PutUserPolicy",
    UserName: "opsbench-test",
    PolicyName: "everything",
    PolicyDocument: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: "*", Resource: "*" }] }),
  });
  const role = await iam(url, {
    Action: "CreateRole",
    RoleName: "opsbench-lambda",
    AssumeRolePolicyDocument: JSON.stringify({
      Version: "2012-10-17",
      Statement: [{ Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" }],
    }),
  });
  const field = (name: string, xml = key) => new RegExp(`<${name}>([^<]+)</${name}>`).exec(xml)?.[1] ?? "";
  return {
    url,
    accessKeyId: field("AccessKeyId"),
    secretAccessKey: field("SecretAccessKey"),
    lambdaRoleArn: field("Arn", role),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** An AWS client's settings for moto in a region, as the user that may do everything. */
export const motoSession = (moto: Moto, region: string) => ({
  region,
  endpoint: moto.url,
  credentials: { accessKeyId: moto.accessKeyId, secretAccessKey: moto.secretAccessKey },
  maxAttempts: 3,
});

/** An image moto's EC2 knows (one of its default AMIs): what the tests' aws-asg targets launch. */
export const MOTO_IMAGE_ID = "ami-12c6146b";

/** What findAsgResources finds of a run torn down completely. */
export const noAsgResources = { autoScalingGroups: [], loadBalancers: [], targetGroups: [], launchTemplates: [] };

/** Saves an aws-asg target that launches moto's image; the rest of its spec as given. */
export async function putAsgTarget(
  scope: WorkspaceScope,
  name: string,
  spec: { credential: string; region: string } & Record<string, unknown>,
) {
  await scope.targets.put(targetInput.parse({ name, kind: "aws-asg", spec: { imageId: MOTO_IMAGE_ID, ...spec } }));
}
