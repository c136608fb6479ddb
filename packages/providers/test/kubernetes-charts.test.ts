// A Helm chart on a real control plane (tests/control-plane/): tests/charts/crd-demo (a CRD, a Widget of it, a
// ClusterRole and a Deployment), packaged with the pinned helm and given base64 in the spec. Without the credential's
// permission it is refused before anything is made; with it the CRD is Established first, the Widget's Ready (set here
// through the status subresource, as a controller would: there is none) is waited for, and teardown, or the reaper
// after a crash, removes the CRD, the ClusterRole and the namespace.
// opsbench's own chart (deploy/helm/opsbench) is checked here too, on the same control plane (it is expensive to
// start): helm lint, helm template with the default values and with ci/external-db-values.yaml, and a server-side
// dry-run apply of every object it renders, with strict field validation.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type KubernetesCredentialAllow, kubernetesSpec, parseLoadHostAllowlist } from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type ControlPlane, startControlPlane } from "../../../tests/control-plane/control-plane";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { ensureHelm } from "../../../apps/worker/helm-build/build.mjs";
import {
  type Container,
  containerOf,
  externalDbValues,
  helm as helmRun,
  type KubeObject,
  objectOf,
  renderOpsbenchChart,
} from "../../../tests/opsbench-chart";
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

/** Sets the Widget's Ready condition through the status subresource, as its controller would; answers when it was sent, or null once `stop` is aborted. */
async function setWidgetReady(runId: string, status: "True" | "False", reason: string, stop?: AbortSignal): Promise<number | null> {
  const p = `/apis/demo.opsbench.dev/v1/namespaces/opsbench-${runId}/widgets/demo`;
  for (let i = 0; ; i++) {
    if (stop?.aborted) return null;
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

/**
 * Runs `controller` (the Widget's controller's part, setWidgetReady) beside `work` (a deploy), and stops and awaits it
 * whatever the deploy does: left running after a failed deploy, it polled a control plane stopped with the file, and
 * its rejection surfaced in the next file of the process. Resolves with the work's result and when the status was sent.
 */
async function besideController<T>(
  controller: (stop: AbortSignal) => Promise<number | null>,
  work: () => Promise<T>,
): Promise<[T, number | null]> {
  const stop = new AbortController();
  const sent = controller(stop.signal);
  try {
    const result = await work();
    return [result, await sent];
  } finally {
    stop.abort();
    await sent.catch(() => null);
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
    const [[dep, deployedAt], readySentAt] = await besideController(
      (stop) => new Promise<void>((r) => setTimeout(r, 4000)).then(() => setWidgetReady(runId, "True", "Reconciled", stop)),
      async () => [await kubernetes.deploy(spec(), ctx), Date.now()] as const,
    );
    try {
      // The deploy waited for the Widget's Ready condition, sent 4 s in: it cannot have seen it before.
      expect(readySentAt).not.toBeNull();
      expect(deployedAt).toBeGreaterThanOrEqual(readySentAt ?? Number.POSITIVE_INFINITY);
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
    await expect(
      besideController(
        (stop) => setWidgetReady(runId, "False", "ProvisioningFailed", stop),
        () => kubernetes.deploy(spec(60_000), ctx),
      ),
    ).rejects.toThrow(
      "helm: document 4 (Widget demo, from crd-demo/templates/widget.yaml): Widget demo failed: Ready=False (ProvisioningFailed: set by the test)",
    );
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
    await besideController(
      (stop) => setWidgetReady(runId, "True", "Reconciled", stop),
      () => kubernetes.deploy(spec(), ctx),
    );
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

/** Where the API serves each kind the chart renders (group/version and plural). */
const RESOURCES: Record<string, { base: string; plural: string; namespaced: boolean }> = {
  "v1/ServiceAccount": { base: "/api/v1", plural: "serviceaccounts", namespaced: true },
  "v1/Secret": { base: "/api/v1", plural: "secrets", namespaced: true },
  "v1/Service": { base: "/api/v1", plural: "services", namespaced: true },
  "apps/v1/Deployment": { base: "/apis/apps/v1", plural: "deployments", namespaced: true },
  "apps/v1/StatefulSet": { base: "/apis/apps/v1", plural: "statefulsets", namespaced: true },
  "batch/v1/Job": { base: "/apis/batch/v1", plural: "jobs", namespaced: true },
  "networking.k8s.io/v1/Ingress": { base: "/apis/networking.k8s.io/v1", plural: "ingresses", namespaced: true },
  "policy/v1/PodDisruptionBudget": { base: "/apis/policy/v1", plural: "poddisruptionbudgets", namespaced: true },
};

/** A server-side apply of one object with dryRun=All: admission and validation run, nothing is stored. */
async function dryRunApply(namespace: string, obj: KubeObject): Promise<{ status: number; body: KubeObject & { message?: string } }> {
  const r = RESOURCES[`${obj.apiVersion}/${obj.kind}`];
  if (!r) throw new Error(`no API path known for ${obj.apiVersion} ${obj.kind} (${obj.metadata.name}): add it to RESOURCES`);
  const p = `${r.base}/namespaces/${namespace}/${r.plural}/${obj.metadata.name}?dryRun=All&fieldManager=helm-chart-test&fieldValidation=Strict&force=true`;
  const { request } = await import("node:https");
  return new Promise((resolve, reject) => {
    const req = request(
      `${cp.server}${p}`,
      {
        method: "PATCH",
        rejectUnauthorized: false,
        headers: { authorization: `Bearer ${cp.adminToken}`, "content-type": "application/apply-patch+yaml", accept: "application/json" },
      },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    // JSON is YAML: the apply body.
    req.end(JSON.stringify({ ...obj, metadata: { ...obj.metadata, namespace } }));
  });
}

describe("opsbench's Helm chart (deploy/helm/opsbench)", () => {
  const withDefaults = () => renderOpsbenchChart({ release: "ops", namespace: "opsbench" });
  const external = () => renderOpsbenchChart({ release: "ops", namespace: "opsbench", valuesFiles: [externalDbValues] });
  const envNames = (c: Container) => (c.env ?? []).map((e) => e.name);

  it("passes helm lint with the default values and with the external database's", () => {
    const chart = path.resolve(import.meta.dirname, "../../../deploy/helm/opsbench");
    expect(helmRun(["lint", chart])).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    expect(helmRun(["lint", chart, "--values", externalDbValues])).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it("renders the bundled Postgres and Redis by default, and none of them with an external database's Secrets", () => {
    const kinds = (objs: KubeObject[]) => objs.map((o) => `${o.kind} ${o.metadata.name}`).sort();
    expect(kinds(withDefaults())).toEqual(
      [
        "Deployment ops-opsbench-load-generator",
        "Deployment ops-opsbench-web",
        "Deployment ops-opsbench-worker",
        "Job ops-opsbench-migrate",
        "PodDisruptionBudget ops-opsbench-load-generator",
        "PodDisruptionBudget ops-opsbench-web",
        "PodDisruptionBudget ops-opsbench-worker",
        "Secret ops-opsbench-secrets",
        "Service ops-opsbench-postgresql",
        "Service ops-opsbench-redis",
        "Service ops-opsbench-web",
        "ServiceAccount ops-opsbench",
        "StatefulSet ops-opsbench-postgresql",
        "StatefulSet ops-opsbench-redis",
      ].sort(),
    );
    const objs = external();
    expect(kinds(objs)).toEqual(
      [
        "Deployment ops-opsbench-load-generator",
        "Deployment ops-opsbench-web",
        "Deployment ops-opsbench-worker",
        "Ingress ops-opsbench",
        "Job ops-opsbench-migrate",
        "PodDisruptionBudget ops-opsbench-load-generator",
        "PodDisruptionBudget ops-opsbench-web",
        "PodDisruptionBudget ops-opsbench-worker",
        "Service ops-opsbench-web",
        "ServiceAccount ops-opsbench",
      ].sort(),
    );
    // Web and workers connect with the external Secrets' URLs; the migrate Job with the schema owner's.
    const web = containerOf(objectOf(objs, "Deployment", "ops-opsbench-web"), "web");
    expect(web.env?.find((e) => e.name === "DATABASE_URL")?.valueFrom?.secretKeyRef).toEqual({ name: "opsbench-database", key: "url" });
    expect(web.env?.find((e) => e.name === "REDIS_URL")?.valueFrom?.secretKeyRef).toEqual({ name: "opsbench-redis", key: "url" });
    expect(web.env?.find((e) => e.name === "OPSBENCH_SECRET_KEY")?.valueFrom?.secretKeyRef).toEqual({
      name: "opsbench-secrets",
      key: "secret-key",
    });
    expect(envNames(web)).not.toContain("POSTGRES_HOST");
    const migrate = objectOf(objs, "Job", "ops-opsbench-migrate");
    expect(migrate.metadata.annotations?.["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    const m = migrate.spec.template.spec.containers[0] as Container;
    expect(m.command).toEqual(["node", "--import", "tsx", "packages/db/src/migrations/migrate-cli.ts"]);
    expect(m.env?.find((e) => e.name === "DATABASE_URL")?.valueFrom?.secretKeyRef).toEqual({
      name: "opsbench-database",
      key: "migrate-url",
    });
    // The fleet is the load generators' replicas, each a worker with --role load.
    const fleet = objectOf(objs, "Deployment", "ops-opsbench-load-generator");
    expect(fleet.spec.replicas).toBe(3);
    expect(containerOf(fleet, "worker").args).toEqual(["--role", "load"]);
    expect(containerOf(objectOf(objs, "Deployment", "ops-opsbench-worker"), "worker").args).toBeUndefined();
  });

  it("gives the runner the sandbox's privileges and no secret, and the worker none", () => {
    for (const name of ["ops-opsbench-worker", "ops-opsbench-load-generator"]) {
      const d = objectOf(withDefaults(), "Deployment", name);
      const pod = d.spec.template.spec;
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.enableServiceLinks).toBe(false);
      expect(pod.shareProcessNamespace).toBeUndefined();
      const runner = containerOf(d, "runner");
      expect(runner.securityContext).toMatchObject({
        runAsUser: 0,
        privileged: false,
        capabilities: { add: ["NET_ADMIN", "SYS_ADMIN"] },
        seccompProfile: { type: "Unconfined" },
      });
      expect((runner.env ?? []).filter((e) => e.valueFrom)).toEqual([]);
      expect(envNames(runner).filter((n) => /DATABASE|REDIS|POSTGRES|SECRET|PASSWORD/.test(n))).toEqual([]);
      const worker = containerOf(d, "worker");
      expect(worker.securityContext).toMatchObject({
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
      });
      expect(envNames(worker)).toContain("OPSBENCH_SECRET_KEY");
      // The two share the socket's volume and nothing else.
      const mounts = (c: Container) => (c as Container & { volumeMounts: { name: string }[] }).volumeMounts.map((v) => v.name);
      expect(mounts(runner)).toEqual(["runner-socket"]);
      expect(mounts(worker)).toEqual(["runner-socket"]);
    }
  });

  it("every object it renders passes a server-side dry-run apply on the control plane, with either values", async () => {
    const namespace = "opsbench-chart";
    await api(cp.server, cp.adminToken, "POST", "/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: namespace },
    });
    try {
      for (const objs of [withDefaults(), external()]) {
        for (const obj of objs) {
          const { status, body } = await dryRunApply(namespace, obj);
          expect({ object: `${obj.kind} ${obj.metadata.name}`, status, message: body.message }).toEqual({
            object: `${obj.kind} ${obj.metadata.name}`,
            status: expect.toSatisfy((s: number) => s === 200 || s === 201),
            message: undefined,
          });
          expect(body.kind).toBe(obj.kind);
          // The server defaulted it (a dry run goes through admission and defaulting): it is what would be stored.
          expect(body.metadata.namespace).toBe(namespace);
        }
      }
      // A dry run stores nothing.
      await expect(
        api(cp.server, cp.adminToken, "GET", `/apis/apps/v1/namespaces/${namespace}/deployments/ops-opsbench-web`),
      ).rejects.toThrow(/404/);
      // And the check can fail: a field the API does not know is refused under strict validation.
      const web = objectOf(withDefaults(), "Deployment", "ops-opsbench-web");
      const typo = { ...web, spec: { ...web.spec, replica: 2 } };
      const refused = await dryRunApply(namespace, typo);
      // (server-side apply answers 500 for a body it cannot type against the schema; its message names the field)
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.body.message).toMatch(/spec\.replica\b/);
      expect(refused.body.message).toMatch(/field not declared in schema|unknown field/);
    } finally {
      await api(cp.server, cp.adminToken, "DELETE", `/api/v1/namespaces/${namespace}`);
    }
  });
});
