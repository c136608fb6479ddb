// The kubernetes provider against a real control plane (tests/control-plane/): the GKE-50 preset gives the
// IoT study's Deployment + Service + HPA, the user's manifests land in the run's namespace, a kubeconfig whose
// user may do nothing is refused naming the verbs, and teardown leaves no namespace.
import { readFileSync } from "node:fs";
import path from "node:path";
import { type KubernetesSpec, kubernetesSpec, targetInput } from "@opsbench/core";
import { parseLoadHostAllowlist } from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "../../../tests/control-plane/control-plane";
import { checkCredential, kubeClientOf, kubernetes, type KubernetesState } from "../src";
import { testContext } from "./provider-context";

const infra = path.resolve(import.meta.dirname, "../../../infra");
let cp: ControlPlane;

beforeAll(async () => {
  cp = await startControlPlane();
}, 3_600_000);
afterAll(() => cp?.stop());

// The control plane listens on loopback: allowed as the test stack's workers allow it (tests/file-services.ts).
const loadHosts = parseLoadHostAllowlist(process.env.OPSBENCH_LOAD_ALLOWED_HOSTS ?? "");
const contextFor = (kubeconfig: string, runId: string) => {
  const t = testContext();
  t.ctx.runId = runId;
  t.ctx.credential = { kind: "kubernetes", kubeconfig };
  t.ctx.loadHosts = loadHosts;
  return t;
};
const runNamespaces = async (runId: string) => {
  const client = await kubeClientOf({ kind: "kubernetes", kubeconfig: cp.adminKubeconfig }, { loadHosts });
  const list = await client.core.listNamespace({ labelSelector: `opsbench-run=${runId}` });
  return list.items.map((n) => n.metadata?.name);
};

describe("kubernetes provider on a real control plane", () => {
  it("checks a kubeconfig with SelfSubjectAccessReviews: an admin may, a user without roles is refused naming every verb", async () => {
    expect(await checkCredential({ kind: "kubernetes", kubeconfig: cp.adminKubeconfig }, { loadHosts })).toEqual({
      ok: true,
      identity: `tester@${cp.server}`,
    });
    const nobody = await checkCredential({ kind: "kubernetes", kubeconfig: cp.nobodyKubeconfig }, { loadHosts });
    expect(nobody.ok).toBe(false);
    expect(!nobody.ok && nobody.message).toBe(
      `the kubeconfig's user may not create namespaces, delete namespaces, list namespaces, create apps/deployments, get apps/deployments, create services, get services, create autoscaling/horizontalpodautoscalers, get autoscaling/horizontalpodautoscalers, list pods, list events, list nodes on the cluster at ${cp.server}`,
    );
  });

  it("the GKE-50 preset gives the IoT study's Deployment (500m request, 1 CPU limit), Service and HPA (50 %, 1..40); teardown removes the namespace", async () => {
    const preset = targetInput.parse(JSON.parse(readFileSync(path.join(infra, "targets/gke-50.json"), "utf8")));
    expect(preset.kind).toBe("kubernetes");
    const spec: KubernetesSpec = { ...(preset.spec as KubernetesSpec), endpoint: "http://127.0.0.1:9", readyTimeoutMs: 120_000 };
    const runId = "11111111-1111-4111-8111-111111111111";
    const { ctx, events, states } = contextFor(cp.adminKubeconfig, runId);
    const dep = await kubernetes.deploy(kubernetesSpec.parse(spec), ctx);
    try {
      expect(dep.endpoint).toBe("http://127.0.0.1:9");
      expect(states[0]).toMatchObject({ namespace: `opsbench-${runId}`, deployment: "app", hpa: "app", minReplicas: 1 });
      const admin = await kubeClientOf({ kind: "kubernetes", kubeconfig: cp.adminKubeconfig }, { loadHosts });
      const ns = `opsbench-${runId}`;
      const d = await admin.apps.readNamespacedDeployment({ name: "app", namespace: ns });
      expect(d.spec?.template.spec?.containers[0]).toMatchObject({
        image: "opsbench/iot:latest",
        resources: { requests: { cpu: "500m" }, limits: { cpu: "1" } },
      });
      expect(d.status?.readyReplicas).toBe(1);
      // The IoT app's database came with it: Postgres (ready before the app), its Service, a password drawn for the run.
      expect(d.spec?.template.spec?.containers[0]?.env).toContainEqual({
        name: "IOT_DATABASE_URL",
        valueFrom: { secretKeyRef: { name: "db", key: "url" } },
      });
      const db = await admin.apps.readNamespacedDeployment({ name: "db", namespace: ns });
      expect(db.spec?.template.spec?.containers[0]?.image).toBe("postgres:17-alpine");
      expect(db.status?.readyReplicas).toBe(1);
      const secret = await admin.core.readNamespacedSecret({ name: "db", namespace: ns });
      const url = Buffer.from(secret.data?.url ?? "", "base64").toString();
      const password = Buffer.from(secret.data?.password ?? "", "base64").toString();
      expect(password).toMatch(/^[\w-]{24}$/);
      expect(url).toBe(`postgresql://app:${password}@db:5432/app`);
      expect(JSON.stringify(d.spec)).not.toContain(password);
      expect((await admin.core.readNamespacedService({ name: "db", namespace: ns })).spec?.ports?.[0]?.port).toBe(5432);
      expect(events.some((e) => e.message.startsWith(`database db (postgres:17-alpine) ready in ${ns}`))).toBe(true);
      const h = await admin.autoscaling.readNamespacedHorizontalPodAutoscaler({ name: "app", namespace: ns });
      expect(h.spec).toMatchObject({
        minReplicas: 1,
        maxReplicas: 40,
        scaleTargetRef: { name: "app" },
        metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } }],
      });
      const svc = await admin.core.readNamespacedService({ name: "app", namespace: ns });
      expect(svc.spec).toMatchObject({ ports: [{ targetPort: 8080 }], selector: { app: "app" } });
      expect(events.some((e) => e.message.startsWith(`namespace ${ns} created`))).toBe(true);
      await kubernetes.reset(dep, ctx);
    } finally {
      await kubernetes.teardown(dep, ctx);
    }
    expect(await runNamespaces(runId)).toEqual([]);
  });

  it("applies the user's manifests into the run's namespace, refuses one naming another namespace before anything is made", async () => {
    const runId = "22222222-2222-4222-8222-222222222222";
    const manifests = readFileSync(path.join(infra, "manifests/gke-50.yaml"), "utf8");
    const { ctx } = contextFor(cp.adminKubeconfig, runId);
    const spec = kubernetesSpec.parse({ credential: "c", manifests, endpoint: "http://127.0.0.1:9", readyTimeoutMs: 120_000 });
    const dep = await kubernetes.deploy(spec, ctx);
    try {
      expect(dep.state).toMatchObject({ deployment: "iot", hpa: null });
      const admin = await kubeClientOf({ kind: "kubernetes", kubeconfig: cp.adminKubeconfig }, { loadHosts });
      const h = await admin.autoscaling.readNamespacedHorizontalPodAutoscaler({ name: "iot", namespace: `opsbench-${runId}` });
      expect(h.metadata?.labels?.["opsbench-run"]).toBe(runId);
      // The cluster's own admission holds the run's pods to the baseline too (custom resources' pods included).
      const namespace = await admin.core.readNamespace({ name: `opsbench-${runId}` });
      expect(namespace.metadata?.labels).toMatchObject({
        "pod-security.kubernetes.io/enforce": "baseline",
        "pod-security.kubernetes.io/enforce-version": "latest",
      });
    } finally {
      await kubernetes.teardown(dep, ctx);
    }
    const other = "33333333-3333-4333-8333-333333333333";
    const bad = kubernetesSpec.parse({
      credential: "c",
      manifests: manifests.replace("name: iot\nspec:\n  replicas", "name: iot\n  namespace: kube-system\nspec:\n  replicas"),
    });
    await expect(kubernetes.deploy(bad, contextFor(cp.adminKubeconfig, other).ctx)).rejects.toThrow(
      'manifests: document 1 (Deployment iot) names namespace "kube-system": manifests go into the run\'s own namespace; leave it out',
    );
    expect(await runNamespaces(other)).toEqual([]);
  });

  it("a deployment that cannot be scheduled fails with what it waited for; teardown (of the saved partial state) leaves no namespace", async () => {
    const runId = "44444444-4444-4444-8444-444444444444";
    const { ctx, states } = contextFor(cp.adminKubeconfig, runId);
    const spec = kubernetesSpec.parse({
      credential: "c",
      image: "opsbench/echo-node:latest",
      replicas: 1,
      placement: { nodeSelector: { pool: "none-such" } },
      endpoint: "http://127.0.0.1:9",
      readyTimeoutMs: 5000,
    });
    await expect(kubernetes.deploy(spec, ctx)).rejects.toThrow(
      /^Deployment app to be ready did not happen within 5 s: 0\/1 replicas ready, want 1/,
    );
    expect(await runNamespaces(runId)).toEqual([`opsbench-${runId}`]);
    await kubernetes.teardown({ state: states.at(-1) as Partial<KubernetesState> }, ctx);
    expect(await runNamespaces(runId)).toEqual([]);
  });
});
