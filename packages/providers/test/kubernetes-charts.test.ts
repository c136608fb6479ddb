// A Helm chart on a real control plane (tests/control-plane/): tests/charts/crd-demo (a CRD, a Widget of it, a
// ClusterRole and a Deployment), packaged with the pinned helm and given base64 in the spec. Without the credential's
// permission it is refused before anything is made; with it the CRD is Established first, the Widget's Ready (set here
// through the status subresource, as a controller would: there is none) is waited for, and teardown, or the reaper
// after a crash, removes the CRD, the ClusterRole and the namespace.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type KubernetesCredentialAllow, kubernetesSpec, parseLoadHostAllowlist } from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type ControlPlane, startControlPlane } from "../../../tests/control-plane/control-plane";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { ensureHelm } from "../../../apps/worker/helm-build/build.mjs";
import { kubeClientOf, kubernetes, type KubernetesState } from "../src";
import { testContext } from "./provider-context";

const chartDir = path.resolve(import.meta.dirname, "../../../tests/charts/crd-demo");
const CRD = "widgets.demo.opsbench.dev";
let cp: ControlPlane;
let helm: string;
let chart: string;

beforeAll(async () => {
  helm = (ensureHelm({ log: () => {} }) as { binary: string }).binary;
  const out = mkdtempSync(path.join(os.tmpdir(), "opsbench-chart-"));
  try {
    execFileSync(helm, ["package", chartDir, "--destination", out], { env: { PATH: "/usr/bin:/bin", HOME: out } });
    chart = readFileSync(path.join(out, "crd-demo-0.1.0.tgz")).toString("base64");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  cp = await startControlPlane();
}, 3_600_000);
afterAll(() => cp?.stop());

const loadHosts = parseLoadHostAllowlist(process.env.OPSBENCH_LOAD_ALLOWED_HOSTS ?? "");
const contextFor = (runId: string, allow?: KubernetesCredentialAllow) => {
  const t = testContext();
  t.ctx.runId = runId;
  t.ctx.credential = { kind: "kubernetes", kubeconfig: cp.adminKubeconfig, ...(allow ? { allow } : {}) };
  t.ctx.loadHosts = loadHosts;
  t.ctx.helm = helm;
  return t;
};
const spec = (readyTimeoutMs = 60_000) =>
  kubernetesSpec.parse({
    credential: "c",
    helm: { chart, values: { widgetSize: "large" } },
    endpoint: "http://127.0.0.1:9",
    readyTimeoutMs,
  });

/** What the run left on the cluster: its namespaces, the CRD, its ClusterRole (by name). */
async function leftOnCluster(runId: string) {
  const admin = await kubeClientOf({ kind: "kubernetes", kubeconfig: cp.adminKubeconfig }, { loadHosts });
  const namespaces = (await admin.core.listNamespace({ labelSelector: `opsbench-run=${runId}` })).items.map((n) => n.metadata?.name);
  const exists = (p: string) =>
    api(cp.server, cp.adminToken, "GET", p).then(
      () => true,
      (e: Error) => (/: 404 /.test(e.message) ? false : Promise.reject(e)),
    );
  return {
    namespaces,
    crd: await exists(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`),
    clusterRole: await exists(`/apis/rbac.authorization.k8s.io/v1/clusterroles/opsbench-${runId}-widget-reader`),
  };
}
const nothingLeft = { namespaces: [], crd: false, clusterRole: false };

/** Sets the Widget's Ready condition through the status subresource, as its controller would; answers when it was sent. */
async function setWidgetReady(runId: string, status: "True" | "False", reason: string): Promise<number> {
  const p = `/apis/demo.opsbench.dev/v1/namespaces/opsbench-${runId}/widgets/demo`;
  for (let i = 0; ; i++) {
    try {
      const w = (await api(cp.server, cp.adminToken, "GET", p)) as Record<string, unknown>;
      const conditions = [{ type: "Ready", status, reason, message: "set by the test", lastTransitionTime: new Date().toISOString() }];
      const sentAt = Date.now();
      await api(cp.server, cp.adminToken, "PUT", `${p}/status`, { ...w, status: { conditions } });
      return sentAt;
    } catch (err) {
      if (i > 100) throw err;
      await new Promise((r) => setTimeout(r, 200)); // not made yet
    }
  }
}

describe("a Helm chart with a CRD and cluster-scoped objects on a real control plane", () => {
  it("is refused before anything is made when the credential's owner did not allow cluster-scoped objects, or custom resources", async () => {
    const runId = "66666666-6666-4666-8666-666666666666";
    const none = contextFor(runId);
    await expect(kubernetes.deploy(spec(), none.ctx)).rejects.toThrow(
      `helm: document 1 (CustomResourceDefinition ${CRD}, from crd-demo/crds/widgets.yaml): apiextensions.k8s.io/v1 CustomResourceDefinition is cluster-scoped (a CustomResourceDefinition): the credential does not allow cluster-scoped objects (allow.clusterScoped, set by a workspace owner; docs/credentials.md)`,
    );
    expect(none.states).toEqual([]);
    const clusterOnly = contextFor(runId, { clusterScoped: true });
    await expect(kubernetes.deploy(spec(), clusterOnly.ctx)).rejects.toThrow(
      /^helm: document \d \(Widget demo, from crd-demo\/templates\/widget\.yaml\): demo\.opsbench\.dev\/v1 Widget is a custom resource: the credential does not allow custom resources \(allow\.customResources/,
    );
    expect(clusterOnly.states).toEqual([]);
    expect(await leftOnCluster(runId)).toEqual(nothingLeft);
  });

  it("with both permissions: CRD, ClusterRole, Widget and Deployment made, the Widget's Ready waited for; teardown removes them all", async () => {
    const runId = "77777777-7777-4777-8777-777777777777";
    const { ctx, states, events } = contextFor(runId, { customResources: true, clusterScoped: true });
    const ready = new Promise<void>((r) => setTimeout(r, 4000)).then(() => setWidgetReady(runId, "True", "Reconciled"));
    const dep = await kubernetes.deploy(spec(), ctx);
    const deployedAt = Date.now();
    const readySentAt = await ready;
    try {
      // The deploy waited for the Widget's Ready condition, sent 4 s in: it cannot have seen it before.
      expect(deployedAt).toBeGreaterThanOrEqual(readySentAt);
      expect(dep.state).toMatchObject({ deployment: "app-web", hpa: null });
      const recorded = [
        { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: CRD },
        { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name: `opsbench-${runId}-widget-reader` },
      ];
      // Recorded before anything was made: in the first state saved, and in the inventory.
      expect((states[0] as KubernetesState).clusterObjects).toEqual(recorded);
      const ns = `opsbench-${runId}`;
      const inventory = (await api(cp.server, cp.adminToken, "GET", `/api/v1/namespaces/${ns}/configmaps/opsbench-inventory`)) as {
        data: { clusterObjects: string };
      };
      expect(JSON.parse(inventory.data.clusterObjects)).toEqual(recorded);
      const crd = (await api(cp.server, cp.adminToken, "GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`)) as {
        metadata: { labels: Record<string, string> };
      };
      expect(crd.metadata.labels["opsbench-run"]).toBe(runId);
      const widget = (await api(cp.server, cp.adminToken, "GET", `/apis/demo.opsbench.dev/v1/namespaces/${ns}/widgets/demo`)) as {
        spec: { size: string };
        metadata: { labels: Record<string, string> };
      };
      expect(widget.spec.size).toBe("large");
      expect(widget.metadata.labels["opsbench-run"]).toBe(runId);
      expect(await leftOnCluster(runId)).toEqual({ namespaces: [ns], crd: true, clusterRole: true });
      expect(events.some((e) => e.message.startsWith("cluster-scoped objects made: CustomResourceDefinition"))).toBe(true);
    } finally {
      await kubernetes.teardown(dep, ctx);
    }
    expect(await leftOnCluster(runId)).toEqual(nothingLeft);
  });

  it("a custom resource whose Ready turns False with a terminal reason fails the deploy with it; teardown of the saved state cleans up", async () => {
    const runId = "88888888-8888-4888-8888-888888888888";
    const { ctx, states } = contextFor(runId, { customResources: true, clusterScoped: true });
    const failing = setWidgetReady(runId, "False", "ProvisioningFailed");
    await expect(kubernetes.deploy(spec(60_000), ctx)).rejects.toThrow(
      "helm: document 4 (Widget demo, from crd-demo/templates/widget.yaml): Widget demo failed: Ready=False (ProvisioningFailed: set by the test)",
    );
    await failing;
    await kubernetes.teardown({ state: states.at(-1) as Partial<KubernetesState> }, ctx);
    expect(await leftOnCluster(runId)).toEqual(nothingLeft);
  });

  it("a custom resource that never reports Ready fails at readyTimeoutMs naming what was waited for", async () => {
    const runId = "99999999-9999-4999-8999-999999999999";
    const { ctx, states } = contextFor(runId, { customResources: true, clusterScoped: true });
    await expect(kubernetes.deploy(spec(6000), ctx)).rejects.toThrow(
      /^the applied objects to be Ready or Available \(custom resources reporting status: Widget demo\) did not happen within 6 s: Widget demo: no Ready or Available condition yet/,
    );
    await kubernetes.teardown({ state: states.at(-1) as Partial<KubernetesState> }, ctx);
    expect(await leftOnCluster(runId)).toEqual(nothingLeft);
  });

  it("a cluster-scoped object that exists already is refused, never taken over: teardown deletes the run's CRD and leaves that one", async () => {
    const runId = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
    const name = `opsbench-${runId}-widget-reader`;
    await api(cp.server, cp.adminToken, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name },
      rules: [],
    });
    const { ctx, states } = contextFor(runId, { customResources: true, clusterScoped: true });
    await expect(kubernetes.deploy(spec(), ctx)).rejects.toThrow(
      `helm: document 2 (ClusterRole ${name}, from crd-demo/templates/clusterrole.yaml): ClusterRole ${name} exists on the cluster already: opsbench makes cluster-scoped objects only anew, it never takes one over`,
    );
    await kubernetes.teardown({ state: states.at(-1) as Partial<KubernetesState> }, ctx);
    // The run's CRD and namespace are gone; the ClusterRole it did not make is still there, unlabelled, as it was.
    expect(await leftOnCluster(runId)).toEqual({ namespaces: [], crd: false, clusterRole: true });
    const role = (await api(cp.server, cp.adminToken, "GET", `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`)) as {
      metadata: { labels?: Record<string, string> };
    };
    expect(role.metadata.labels?.["opsbench-run"]).toBeUndefined();
    await api(cp.server, cp.adminToken, "DELETE", `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`);
  });

  it("the reaper finds a crashed run by its namespace and CRD, and deletes the CRD, the ClusterRole and the namespace", async () => {
    const runId = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
    const { ctx } = contextFor(runId, { customResources: true, clusterScoped: true });
    void setWidgetReady(runId, "True", "Reconciled");
    await kubernetes.deploy(spec(), ctx);
    // The worker died here: no teardown. The reaper has only the credential.
    expect(await leftOnCluster(runId)).toEqual({ namespaces: [`opsbench-${runId}`], crd: true, clusterRole: true });
    const reaper = kubernetes.reaper;
    if (!reaper) throw new Error("the kubernetes kind has a reaper");
    const rctx = { credential: { kind: "kubernetes" as const, kubeconfig: cp.adminKubeconfig }, loadHosts, log: () => {} };
    expect(await reaper.listRuns(rctx)).toContain(runId);
    await reaper.deleteRun(runId, rctx);
    expect(await leftOnCluster(runId)).toEqual(nothingLeft);
    expect(await reaper.listRuns(rctx)).not.toContain(runId);
  });
});
