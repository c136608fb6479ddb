// Saving a credential: the web app seals it and a worker checks it against its platform through the
// credential-check queue. Against a stand-in Kubernetes API on loopback (tests/fake-kube-api.ts); the real
// control plane's checks are in packages/providers/test/kubernetes.test.ts.
import { type CredentialSecret, credentialSecretSchema } from "@opsbench/core";
import { openSealedCredential, SecretKeyError } from "@opsbench/db";
import { createCredentialChecker } from "@opsbench/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeKubeApi, kubeconfigYaml, startFakeKubeApi } from "../../../tests/fake-kube-api";
import { openTestStack, testRedisUrl, testSecretKey } from "../../../tests/helpers";
import { freePort } from "../../../tests/ports";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let kube: FakeKubeApi;
let checker: ReturnType<typeof createCredentialChecker>;

beforeAll(async () => {
  stack = await openTestStack();
  kube = await startFakeKubeApi();
  checker = createCredentialChecker(testRedisUrl());
});
afterAll(async () => {
  await checker.close();
  await kube.close();
  await stack.close();
});

const check = (name: string, secret: CredentialSecret) =>
  checker.check({ workspaceId: stack.scope.workspaceId, name, sealed: stack.scope.credentials.seal(name, secret, testSecretKey()) });

describe("credential checks on the worker", () => {
  it("seals with AES-256-GCM bound to the workspace and name, and opens only with the same key and name", () => {
    const secret: CredentialSecret = { kind: "kubernetes", kubeconfig: kube.kubeconfig() };
    const sealed = stack.scope.credentials.seal("k", secret, testSecretKey());
    expect(sealed).not.toContain(kube.token);
    expect(sealed.startsWith("v1.")).toBe(true);
    expect(openSealedCredential(sealed, testSecretKey(), stack.scope.workspaceId, "k")).toEqual(credentialSecretSchema.parse(secret));
    expect(() => openSealedCredential(sealed, testSecretKey(), stack.scope.workspaceId, "other")).toThrow(SecretKeyError);
    expect(() => openSealedCredential(sealed, "a".repeat(64), stack.scope.workspaceId, "k")).toThrow(/does not open/);
    expect(() => stack.scope.credentials.seal("k", secret, undefined)).toThrow(/OPSBENCH_SECRET_KEY is not set/);
  });

  it("accepts a kubeconfig whose user may do everything opsbench needs", async () => {
    const before = kube.reviews;
    expect(await check("good", { kind: "kubernetes", kubeconfig: kube.kubeconfig() })).toEqual({
      ok: true,
      identity: `tester@${kube.url}`,
    });
    expect(kube.reviews - before).toBe(12);
  });

  it("names the verbs a kubeconfig's user may not use", async () => {
    kube.deny.add("create autoscaling/horizontalpodautoscalers").add("list nodes");
    try {
      const r = await check("narrow", { kind: "kubernetes", kubeconfig: kube.kubeconfig() });
      expect(r).toEqual({
        ok: false,
        message: `the kubeconfig's user may not create autoscaling/horizontalpodautoscalers, list nodes on the cluster at ${kube.url}`,
      });
    } finally {
      kube.deny.clear();
    }
  });

  it("refuses a wrong token, an unreachable cluster, an unknown context and a kubeconfig that runs a command, naming each", async () => {
    const wrong = await check("wrong", { kind: "kubernetes", kubeconfig: kube.kubeconfig({ token: "not-the-token" }) });
    expect(wrong.ok).toBe(false);
    expect(!wrong.ok && wrong.message).toMatch(
      new RegExp(`^the cluster at ${kube.url} refused .*: the kubeconfig's credentials were not accepted`),
    );
    const closed = await freePort();
    const gone = await check("gone", { kind: "kubernetes", kubeconfig: kube.kubeconfig({ server: `http://127.0.0.1:${closed}` }) });
    expect(!gone.ok && gone.message).toMatch(
      new RegExp(
        `^cannot reach the cluster at http://127\\.0\\.0\\.1:${closed} \\([A-Z]+ .+\\): connect ECONNREFUSED 127\\.0\\.0\\.1:${closed}$`,
      ),
    );
    const context = await check("ctx", { kind: "kubernetes", kubeconfig: kube.kubeconfig(), context: "prod" });
    expect(context).toEqual({ ok: false, message: 'the kubeconfig has no context "prod" (it has: test)' });
    const exec = kubeconfigYaml(kube.url, kube.token, "    exec:\n      command: /bin/sh");
    const r = await check("exec", { kind: "kubernetes", kubeconfig: exec });
    expect(!r.ok && r.message).toMatch(/^users\[0\]\.user: "exec" is not accepted: opsbench accepts only what the kubeconfig itself holds/);
    const garbage = await check("garbage", { kind: "kubernetes", kubeconfig: `token: ${kube.token}\n  : - [` });
    expect(garbage.ok).toBe(false);
    expect(JSON.stringify(garbage)).not.toContain(kube.token);
    for (const answer of [wrong, gone, context, r]) expect(JSON.stringify(answer)).not.toContain(kube.token);
  });
});
