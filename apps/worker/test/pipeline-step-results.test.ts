// The steps before and after deploy return what they found instead of writing it onto the run's context
// (docs/architecture.md, "A new step"): the typed target, the admitted load host, the credential. The context here is
// frozen, so a step that still wrote onto it would throw; what the run hands on is what the steps returned.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLoadHostAllowlist, type TargetSnapshot } from "@opsbench/core";
import { endpoint, localService } from "@opsbench/providers";
import { openTestStack, shortRamp, taewaTarget, testRedisUrl, testSecretKey } from "../../../tests/helpers";
import { Redis } from "ioredis";
import { checkBeforeDeploy, parseRunTarget } from "../src/pipeline/before-deploy";
import type { ClaimedRun } from "../src/pipeline/claim";
import { checkLoadHost } from "../src/pipeline/load-host-check";
import { type PipelineDeps, type RunContext, runContext } from "../src/pipeline/run-context";
import { RunFailure } from "../src/pipeline/run-failure";
import { openTargetCredential } from "../src/pipeline/target-credential";
import { createLogger } from "../src/logger";
import { RunnerClient } from "../src/runner-client";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let redis: Redis;
beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  redis = new Redis(testRedisUrl());
});
afterAll(async () => {
  await redis.quit();
  await stack.close();
});

// Nothing listens here: these steps judge the address, they never send it a request.
const URL_ON_ALLOWLIST = "http://127.0.0.1:59871";

async function frozenRun(targetSpec: TargetSnapshot): Promise<{ ctx: RunContext; claimed: ClaimedRun }> {
  const target = await stack.scope.targets.put(taewaTarget(`results-${Math.random().toString(36).slice(2, 8)}`));
  const workload = await stack.scope.workloads.put(shortRamp(`results-${Math.random().toString(36).slice(2, 8)}`));
  const row = await stack.db.run.create({
    data: {
      workspaceId: stack.scope.workspaceId,
      targetId: target.id,
      workloadId: workload.id,
      targetSpec: targetSpec as object,
      workloadSpec: workload.spec as object,
    },
  });
  const deps: PipelineDeps = {
    db: stack.db,
    redis,
    log: createLogger("silent"),
    // The steps tested here never reach the runner; a client of a socket that does not exist says so if one did.
    k6: {
      runner: new RunnerClient("/nonexistent/runner.sock"),
      version: "test",
      deadline: { graceSeconds: 1, maxSeconds: 60 },
      blockHosts: [],
    },
    benchappsDir: "/nonexistent",
    workDir: "/nonexistent",
    loadHosts: parseLoadHostAllowlist(new URL(URL_ON_ALLOWLIST).host),
    secretKey: testSecretKey(),
  };
  const ctx = Object.freeze(runContext(row.id, deps, new AbortController().signal));
  return { ctx, claimed: { run: await ctx.store.get(), target: targetSpec } };
}

describe("pipeline steps return what they found", () => {
  it("the target is parsed once, typed by its kind; a spec that does not fit names the field inside the spec", () => {
    const target = parseRunTarget({ kind: "endpoint", spec: { url: URL_ON_ALLOWLIST } });
    expect(target.kind).toBe("endpoint");
    // Typed: the endpoint kind's spec has its url (a compile error here if the target travelled as unknown).
    expect(target.kind === "endpoint" && target.spec.url).toBe(URL_ON_ALLOWLIST);
    expect(() => parseRunTarget({ kind: "local-service", spec: { app: "echo/node", replicas: 0 } })).toThrow(RunFailure);
    expect(() => parseRunTarget({ kind: "local-service", spec: { app: "echo/node", replicas: 0 } })).toThrow(
      /^invalid target spec: replicas: /,
    );
  });

  it("before deploy: { target, host } with the host the allowlist admitted; after deploy the same host for the same origin, recorded on the run", async () => {
    const { ctx, claimed } = await frozenRun({ kind: "endpoint", spec: { url: URL_ON_ALLOWLIST } });
    const checked = await checkBeforeDeploy(ctx, endpoint, claimed);
    expect(checked.target).toEqual({ kind: "endpoint", spec: expect.objectContaining({ url: URL_ON_ALLOWLIST }) });
    expect(checked.host).toMatchObject({ endpoint: URL_ON_ALLOWLIST, admission: { how: "allowlist", host: "127.0.0.1", address: null } });

    // The deploy answered a path below the admitted origin: the host admitted before deploy is the one handed on.
    const dep = { endpoint: `${URL_ON_ALLOWLIST}/api`, state: {} };
    const after = await checkLoadHost(ctx, endpoint, { target: checked.target, dep }, checked, "results-target");
    expect(after.host).toBe(checked.host);
    expect((await ctx.store.get()).loadAdmission).toMatchObject({ how: "allowlist", host: "127.0.0.1" });
  });

  it("a target this machine serves admits no host (null), and a spec naming no credential opens none", async () => {
    const { ctx, claimed } = await frozenRun({
      kind: "local-service",
      spec: { app: "echo/node", replicas: 1, env: {}, startTimeoutMs: 10_000 },
    });
    const checked = await checkBeforeDeploy(ctx, localService, claimed);
    expect(checked.host).toBeNull();
    const after = await checkLoadHost(
      ctx,
      localService,
      { target: checked.target, dep: { endpoint: "http://127.0.0.1:40000", state: {} } },
      checked,
      "t",
    );
    expect(after).toEqual({ host: null });
    expect(await openTargetCredential(ctx, checked.target, { check: true })).toEqual({ credential: null });
  });

  it("a credential of another kind than the target's kind takes is refused before it is sent anywhere", async () => {
    const name = `kube-${Math.random().toString(36).slice(2, 8)}`;
    const secret = { kind: "kubernetes" as const, kubeconfig: "apiVersion: v1\nkind: Config\n" };
    await stack.scope.credentials.save({
      name,
      kind: secret.kind,
      sealed: stack.scope.credentials.seal(name, secret, testSecretKey()),
      checkedAt: new Date(),
    });
    const lambda = { kind: "aws-lambda", spec: { credential: name, region: "eu-west-1", runtime: "nodejs22.x", handlerSource: "x" } };
    const { ctx } = await frozenRun(lambda);
    // check: true would send it to its platform: the kind is refused first, so nothing is sent.
    await expect(openTargetCredential(ctx, lambda, { check: true })).rejects.toThrow(
      new RunFailure(
        `the target names credential "${name}", which is a kubernetes credential: aws-lambda targets take aws credentials; refused before deploying`,
      ),
    );
    // The same credential where the kind takes a kubeconfig opens (not checked: no cluster here).
    const kube = { kind: "kubernetes", spec: { credential: name, image: "x" } };
    expect((await openTargetCredential(ctx, kube, { check: false })).credential).toMatchObject({ kind: "kubernetes" });
    // An endpoint takes the kind its link names.
    const linked = {
      kind: "endpoint",
      spec: { url: URL_ON_ALLOWLIST, linked: { credential: name, autoScalingGroupName: "g", region: "eu-west-1" } },
    };
    await expect(openTargetCredential(ctx, linked, { check: false })).rejects.toThrow("endpoint targets take aws credentials");
  });
});
