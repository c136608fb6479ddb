// Issue 21, "a cloud kind against its emulator": an aws-asg run against moto whose load balancer's address (the one
// the deploy returned: the ALB's DNS name) lives in a network namespace of our own, the name answered by a tiny DNS
// server, SUCCEEDS sandboxed with no `unsandboxed-load` flag and no allowlist entry, recorded as created by the run.
// The same address is not admitted for another run: a plain `endpoint` target naming it needs a proof of ownership.
// Before this, a platform's address was refused unless the admin's allowlist held a host name matching it.
import { type CredentialSecret, workloadSpec } from "@opsbench/core";
import { startRun } from "@opsbench/jobs";
import { findAsgResources } from "@opsbench/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_LOAD_ALLOWED_HOSTS, useWorker } from "../file-services";
import { openTestStack, testSecretKey, waitForFinal } from "../helpers";
import { motoSession, noAsgResources, putAsgTarget, startMoto, type Moto } from "../moto";
import { makeRemoteHost, type RemoteHost, startTinyDns } from "../remote-hosts";

const REGION = "us-east-1";
const ALB_SUFFIX = ".elb.amazonaws.com";
let stack: Awaited<ReturnType<typeof openTestStack>>;
let moto: Moto;
let albHost: RemoteHost;
let dns: Awaited<ReturnType<typeof startTinyDns>>;
let albName = "";

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  [moto, albHost] = await Promise.all([startMoto(), makeRemoteHost()]);
  // The load balancer's stand-in: the echo benchapp on port 80 of a host of our own, where every ALB name points.
  await albHost.serve(80);
  dns = await startTinyDns((name) => (name.endsWith(ALB_SUFFIX) ? albHost.address : null));
  // The allowlist holds loopback ports only (the tests' default): no host name, no address of the namespace.
  await useWorker({
    env: {
      OPSBENCH_LOAD_ALLOWED_HOSTS: TEST_LOAD_ALLOWED_HOSTS,
      OPSBENCH_DNS_SERVERS: dns.server,
      OPSBENCH_AWS_ENDPOINT_URL: moto.url,
      // The namespace's address is in 10.231.0.0/16, a private range: a platform's answer there needs the admin's word.
      OPSBENCH_LOAD_PRIVATE_RANGES: "10.231.0.0/16",
    },
  });
  const aws: CredentialSecret = { kind: "aws", accessKeyId: moto.accessKeyId, secretAccessKey: moto.secretAccessKey, region: REGION };
  await stack.scope.credentials.save({
    name: "aws-ns",
    kind: "aws",
    sealed: stack.scope.credentials.seal("aws-ns", aws, testSecretKey()),
    checkedAt: new Date(),
  });
  await stack.scope.workloads.put({
    name: "alb-gets",
    spec: workloadSpec.parse({
      kind: "script",
      source: `
import http from "k6/http";
import { check } from "k6";
export const options = { vus: 1, iterations: 5 };
export default function () {
  const r = http.get(__ENV.OPSBENCH_BASE_URL + "/?input=alb");
  check(r, { "the ALB's stand-in answers": (x) => x.status === 200 && x.body === "Hello, input was: alb" });
}
`,
    }),
  });
});
afterAll(async () => {
  await dns?.close();
  await albHost?.remove();
  await moto?.stop();
  await stack?.close();
});

describe("a cloud kind against its emulator, its address in a namespace", () => {
  it("aws-asg: the ALB the deploy returned is loaded sandboxed, admitted as created by the run, then torn down", async () => {
    await putAsgTarget(stack.scope, "asg-ns", {
      credential: "aws-ns",
      region: REGION,
      minSize: 1,
      maxSize: 2,
      metrics: { settleSeconds: 0, waitSeconds: 2, pollSeconds: 1 },
    });
    const run = await startRun(stack.scope, stack.queue, { targetName: "asg-ns", workloadName: "alb-gets" });
    const view = await waitForFinal(stack.db, run.id, 240_000);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.flags.map((f) => f.code)).not.toContain("unsandboxed-load");
    expect(view.checks.find((c) => c.name === "the ALB's stand-in answers")).toMatchObject({ passes: 5, fails: 0 });
    expect(view.loadAdmission).toMatchObject({ how: "created-by-run", port: 80, address: albHost.address });
    albName = view.loadAdmission!.host;
    expect(albName.endsWith(ALB_SUFFIX)).toBe(true);
    expect(view.loadAdmission!.detail).toBe(`the deploy of this run returned ${albName}`);
    expect(await findAsgResources(motoSession(moto, REGION), run.id)).toEqual(noAsgResources);
  });

  it("the same address for another run of a plain endpoint target needs a proof of ownership", async () => {
    expect(albName).not.toBe("");
    await stack.scope.targets.put({ name: "alb-by-hand", kind: "endpoint", spec: { url: `http://${albName}` } });
    const run = await startRun(stack.scope, stack.queue, { targetName: "alb-by-hand", workloadName: "alb-gets" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.status).toBe("FAILED");
    expect(view.error).toContain(`load to ${albName} refused: opsbench did not start this endpoint`);
    // The stand-in answers every path with its greeting: a 200 without the token is no proof.
    expect(view.error).toContain("answered 200 without the token as its body");
    expect(view.error).toMatch(/GET \/api\/v1\/targets\/[0-9a-f-]{36}\/verification show the token/);
    expect(view.loadAdmission).toBeNull();
    expect(view.steps.map((s) => s.name)).not.toContain("LOAD");
  });
});
