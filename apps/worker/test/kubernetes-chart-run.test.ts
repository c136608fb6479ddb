// A kubernetes target with a Helm chart (tests/charts/crd-demo: a CRD, a Widget of it, a ClusterRole, a Deployment)
// run through the worker against a real control plane: under a credential whose owner allowed neither custom
// resources nor cluster-scoped objects the run fails in PROVISION naming the CRD and the permission, with nothing made;
// under one allowing both it deploys (the Widget's Ready set by the test, as a controller would), loads the stand-in,
// and its teardown leaves no CRD, ClusterRole or namespace.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type KubernetesCredentialAllow, parseLoadHostAllowlist, type TargetInput } from "@opsbench/core";
import { startRun } from "@opsbench/jobs";
import { kubeClientOf } from "@opsbench/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type ControlPlane, startControlPlane } from "../../../tests/control-plane/control-plane";
import { type StandIn, startStandIn } from "../../../tests/control-plane/stand-in";
import { openTestStack, shortRamp, testSecretKey, waitForFinal } from "../../../tests/helpers";
import { freePort } from "../../../tests/ports";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { ensureHelm } from "../helm-build/build.mjs";

const CRD = "widgets.demo.opsbench.dev";
let stack: Awaited<ReturnType<typeof openTestStack>>;
let cp: ControlPlane;
let standIn: StandIn;
let chart: string;

beforeAll(async () => {
  const helm = (ensureHelm({ log: () => {} }) as { binary: string }).binary;
  const out = mkdtempSync(path.join(os.tmpdir(), "opsbench-chart-"));
  try {
    execFileSync(helm, ["package", path.resolve(import.meta.dirname, "../../../tests/charts/crd-demo"), "--destination", out], {
      env: { PATH: "/usr/bin:/bin", HOME: out },
    });
    chart = readFileSync(path.join(out, "crd-demo-0.1.0.tgz")).toString("base64");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  [stack, cp] = await Promise.all([openTestStack(), startControlPlane()]);
  standIn = await startStandIn(await freePort());
}, 3_600_000);
afterAll(async () => {
  standIn?.stop();
  await cp?.stop();
  await stack?.close();
});

async function saveKubeconfig(name: string, allow?: KubernetesCredentialAllow) {
  const secret = { kind: "kubernetes" as const, kubeconfig: cp.adminKubeconfig, ...(allow ? { allow } : {}) };
  await stack.scope.credentials.save({
    name,
    kind: "kubernetes",
    sealed: stack.scope.credentials.seal(name, secret, testSecretKey()),
    checkedAt: new Date(),
  });
}

const target = (name: string, credential: string): TargetInput => ({
  name,
  kind: "kubernetes",
  spec: { credential, helm: { chart }, port: 8080, env: {}, endpoint: standIn.url, readyTimeoutMs: 90_000 },
});

async function start(t: TargetInput) {
  await stack.scope.targets.put(t);
  await stack.scope.workloads.put(shortRamp(`${t.name}-load`, { vus: 2, holdSeconds: 3 }));
  return (await startRun(stack.scope, stack.queue, { targetName: t.name, workloadName: `${t.name}-load` })).id;
}

const exists = (p: string) =>
  api(cp.server, cp.adminToken, "GET", p).then(
    () => true,
    (e: Error) => (/: 404 /.test(e.message) ? false : Promise.reject(e)),
  );
async function leftOnCluster(runId: string) {
  const loadHosts = parseLoadHostAllowlist(process.env.OPSBENCH_LOAD_ALLOWED_HOSTS ?? "");
  const admin = await kubeClientOf({ kind: "kubernetes", kubeconfig: cp.adminKubeconfig }, { loadHosts });
  return {
    namespaces: (await admin.core.listNamespace({ labelSelector: `opsbench-run=${runId}` })).items.map((n) => n.metadata?.name),
    crd: await exists(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`),
    clusterRole: await exists(`/apis/rbac.authorization.k8s.io/v1/clusterroles/opsbench-${runId}-widget-reader`),
  };
}

describe("a Helm chart run through the worker", () => {
  it("under a credential without the owner's permission: FAILED in PROVISION naming the CRD and allow.clusterScoped, nothing made", async () => {
    await saveKubeconfig("plain");
    const runId = await start(target("chart-refused", "plain"));
    const view = await waitForFinal(stack.db, runId, 120_000);
    expect(view.status).toBe("FAILED");
    expect(view.error).toBe(
      `helm: document 1 (CustomResourceDefinition ${CRD}, from crd-demo/crds/widgets.yaml): apiextensions.k8s.io/v1 CustomResourceDefinition is cluster-scoped (a CustomResourceDefinition): the credential does not allow cluster-scoped objects (allow.clusterScoped, set by a workspace owner; docs/credentials.md)`,
    );
    const provision = await stack.db.runStep.findFirstOrThrow({ where: { runId, name: "PROVISION" } });
    expect(provision.status).toBe("FAILED");
    expect((provision.detail as { state?: unknown } | null)?.state).toBeUndefined();
    expect(await leftOnCluster(runId)).toEqual({ namespaces: [], crd: false, clusterRole: false });
  }, 300_000);

  it("under a credential allowing both: SUCCEEDED once the Widget is Ready; teardown leaves no CRD, ClusterRole or namespace", async () => {
    await saveKubeconfig("allowing", { customResources: true, clusterScoped: true });
    const runId = await start(target("chart-allowed", "allowing"));
    // The Widget's controller, played here: Ready=True through the status subresource once the Widget exists.
    const widget = `/apis/demo.opsbench.dev/v1/namespaces/opsbench-${runId}/widgets/demo`;
    for (let i = 0; ; i++) {
      const w = (await api(cp.server, cp.adminToken, "GET", widget).catch(() => null)) as Record<string, unknown> | null;
      if (w) {
        const conditions = [{ type: "Ready", status: "True", reason: "Reconciled", lastTransitionTime: new Date().toISOString() }];
        await api(cp.server, cp.adminToken, "PUT", `${widget}/status`, { ...w, status: { conditions } });
        break;
      }
      if (i > 600) throw new Error("the Widget was never made");
      await new Promise((r) => setTimeout(r, 100));
    }
    const view = await waitForFinal(stack.db, runId, 300_000);
    expect(view.error ?? null).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    const provision = await stack.db.runStep.findFirstOrThrow({ where: { runId, name: "PROVISION" } });
    expect((provision.detail as { state: { clusterObjects: unknown } }).state.clusterObjects).toEqual([
      { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: CRD },
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name: `opsbench-${runId}-widget-reader` },
    ]);
    expect(await leftOnCluster(runId)).toEqual({ namespaces: [], crd: false, clusterRole: false });
  }, 400_000);
});
