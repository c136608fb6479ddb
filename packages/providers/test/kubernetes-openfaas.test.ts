// The openfaas-function flavour against the real control plane. OpenFaaS's operator does not run here (its Go module
// is not served by the module proxy this machine reaches), so this test applies OpenFaaS's Function API (a CRD of
// openfaas.com/v1 Function with the status fields the operator's types declare) and plays the operator's part by
// hand, in the open: it makes the function's Deployment (kwok makes its pods ready) and writes the Function's
// status conditions. What is tested is opsbench's side of the contract: the Function and namespace it makes, that it
// waits for the operator's Ready and Healthy conditions, fails on Ready=False with the operator's reason, sends the
// load to the gateway's route of the function, and leaves nothing at teardown.
import { kubernetesSpec, parseLoadHostAllowlist } from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type ControlPlane, startControlPlane } from "../../../tests/control-plane/control-plane";
import { kubernetes, type KubernetesState } from "../src";
import type { OpenFaasFunction } from "../src/kubernetes/openfaas";
import { testContext } from "./provider-context";

let cp: ControlPlane;
const loadHosts = parseLoadHostAllowlist(process.env.OPSBENCH_LOAD_ALLOWED_HOSTS ?? "");
const admin = (method: string, p: string, body?: unknown) => api(cp.server, cp.adminToken, method, p, body);

/** OpenFaaS's Function API as its CRD serves it: namespaced, a status subresource, spec.name and spec.image required. */
const functionCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "functions.openfaas.com" },
  spec: {
    group: "openfaas.com",
    scope: "Namespaced",
    names: { plural: "functions", singular: "function", kind: "Function", listKind: "FunctionList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                required: ["name", "image"],
                "x-kubernetes-preserve-unknown-fields": true,
                properties: { name: { type: "string" }, image: { type: "string" } },
              },
              status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      },
    ],
  },
};

beforeAll(async () => {
  cp = await startControlPlane();
}, 3_600_000);
afterAll(() => cp?.stop());

const contextFor = (runId: string) => {
  const t = testContext();
  t.ctx.runId = runId;
  t.ctx.credential = { kind: "kubernetes", kubeconfig: cp.adminKubeconfig };
  t.ctx.loadHosts = loadHosts;
  return t;
};

const fnPath = (ns: string) => `/apis/openfaas.com/v1/namespaces/${ns}/functions/app`;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `read` gives a value (the Function the deploy creates), within 60 s. */
async function eventually<T>(read: () => Promise<T | null>): Promise<T> {
  for (let i = 0; i < 120; i++) {
    const v = await read().catch(() => null);
    if (v) return v;
    await wait(500);
  }
  throw new Error("not there within 60 s");
}

/** The operator's part: the function's Deployment, as OpenFaaS names it (after the function). */
const functionDeployment = (ns: string, fn: OpenFaasFunction, replicas: number) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: fn.spec.name, namespace: ns, labels: { faas_function: fn.spec.name } },
  spec: {
    replicas,
    selector: { matchLabels: { faas_function: fn.spec.name } },
    template: {
      metadata: { labels: { faas_function: fn.spec.name } },
      spec: { containers: [{ name: fn.spec.name, image: fn.spec.image, ports: [{ containerPort: 8080 }] }] },
    },
  },
});

const condition = (type: string, status: string, reason: string, message = "") => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
});

describe("openfaas-function flavour on a real control plane (the operator's part played by the test)", () => {
  it("without OpenFaaS's API on the cluster, the run fails at once saying so, and teardown leaves no namespace", async () => {
    const runId = "0fa50000-0000-4000-8000-000000000001";
    const { ctx } = contextFor(runId);
    const spec = kubernetesSpec.parse({
      credential: "c",
      image: "opsbench/echo-go:latest",
      flavour: "openfaas-function",
      openfaas: { gateway: "http://127.0.0.1:9" },
      readyTimeoutMs: 30_000,
    });
    await expect(kubernetes.deploy(spec, ctx)).rejects.toThrow(
      /^the cluster at https:\/\/127\.0\.0\.1:\d+ does not serve openfaas\.com\/v1 Function: install OpenFaaS with its operator there first \(.*creating OpenFaaS Function app: HTTP 404/,
    );
    await kubernetes.teardown({ endpoint: "", state: { runId } as KubernetesState }, ctx);
    await expect(admin("GET", `/api/v1/namespaces/opsbench-${runId}`)).rejects.toThrow(/404/);
  });

  it("makes the Function, waits for Ready and Healthy, loads the gateway's route, fails on Ready=False; nothing left", async () => {
    await admin("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", functionCrd);
    await eventually(async () => {
      const crd = (await admin("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/functions.openfaas.com")) as {
        status?: { conditions?: { type: string; status: string }[] };
      };
      return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ? crd : null;
    });

    const runId = "0fa50000-0000-4000-8000-000000000002";
    const ns = `opsbench-${runId}`;
    const { ctx, events, states } = contextFor(runId);
    const spec = kubernetesSpec.parse({
      credential: "c",
      image: "opsbench/echo-go:latest",
      flavour: "openfaas-function",
      replicas: 2,
      env: { mode: "http" },
      resources: { cpuRequest: "100m", memoryLimit: "128Mi" },
      openfaas: { gateway: "http://127.0.0.1:9/" },
      readyTimeoutMs: 60_000,
    });
    let settled = false;
    const deploying = kubernetes.deploy(spec, ctx).finally(() => {
      settled = true;
    });
    try {
      const fn = await eventually(() => admin("GET", fnPath(ns)) as Promise<OpenFaasFunction>);
      expect(fn.spec).toMatchObject({
        name: "app",
        image: "opsbench/echo-go:latest",
        labels: { "com.openfaas.scale.min": "2", "com.openfaas.scale.max": "2", "com.openfaas.scale.zero": "false", "opsbench-run": runId },
        environment: { PORT: "8080", mode: "http" },
        requests: { cpu: "100m" },
        limits: { memory: "128Mi" },
      });
      const namespace = (await admin("GET", `/api/v1/namespaces/${ns}`)) as { metadata: { annotations?: Record<string, string> } };
      expect(namespace.metadata.annotations).toEqual({ openfaas: "1" });

      // No operator yet: the deploy waits.
      await wait(3000);
      expect(settled).toBe(false);

      // The operator's part: the Deployment, then the Function's status once its replicas are available.
      await admin("POST", `/apis/apps/v1/namespaces/${ns}/deployments`, functionDeployment(ns, fn, 2));
      await eventually(async () => {
        const d = (await admin("GET", `/apis/apps/v1/namespaces/${ns}/deployments/app`)) as { status?: { readyReplicas?: number } };
        return (d.status?.readyReplicas ?? 0) >= 2 ? d : null;
      });
      expect(settled).toBe(false);
      const current = (await admin("GET", fnPath(ns))) as OpenFaasFunction;
      await admin("PUT", `${fnPath(ns)}/status`, {
        ...current,
        status: {
          observedGeneration: current.metadata?.generation,
          replicas: 2,
          availableReplicas: 2,
          conditions: [condition("Ready", "True", "Reconciled"), condition("Healthy", "True", "ReplicasAvailable")],
        },
      });
      const dep = await deploying;
      expect(dep.endpoint).toBe(`http://127.0.0.1:9/function/app.${ns}`);
      expect(states.at(-1)).toMatchObject({ namespace: ns, deployment: "app", openfaas: { function: "app" }, minReplicas: 2 });
      expect(events.map((e) => e.message)).toContain("OpenFaaS Function app: Ready and Healthy (Deployment app)");

      // Observed like any Deployment: the Function's replicas, and cold starts counted (none here).
      const controller = new AbortController();
      const points = [];
      setTimeout(() => controller.abort(), 3000);
      for await (const p of kubernetes.observe(dep, { signal: controller.signal, intervalMs: 500 }, ctx)) points.push(p);
      expect(points.length).toBeGreaterThan(0);
      expect(points.at(-1)).toMatchObject({ replicas: 2, detail: { kind: "kubernetes", ready: 2, coldStarts: 0 } });
    } finally {
      await deploying.catch(() => {});
      await kubernetes.teardown({ endpoint: "", state: { runId } as KubernetesState }, ctx);
    }
    await expect(admin("GET", `/api/v1/namespaces/${ns}`)).rejects.toThrow(/404/);

    // The operator refusing the Function: Ready=False with its reason fails the deploy at once.
    const failing = "0fa50000-0000-4000-8000-000000000003";
    const failingNs = `opsbench-${failing}`;
    const f = contextFor(failing);
    const refused = kubernetes.deploy(spec, f.ctx);
    try {
      const fn = await eventually(() => admin("GET", fnPath(failingNs)) as Promise<OpenFaasFunction>);
      await admin("PUT", `${fnPath(failingNs)}/status`, {
        ...fn,
        status: {
          observedGeneration: fn.metadata?.generation,
          conditions: [condition("Ready", "False", "SecretNotFound", "secret db-url not found")],
        },
      });
      await expect(refused).rejects.toThrow(
        "the OpenFaaS operator could not apply the Function: Ready=False (SecretNotFound: secret db-url not found)",
      );
    } finally {
      await refused.catch(() => {});
      await kubernetes.teardown({ endpoint: "", state: { runId: failing } as KubernetesState }, f.ctx);
      await admin("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/functions.openfaas.com");
    }
    await expect(admin("GET", `/api/v1/namespaces/${failingNs}`)).rejects.toThrow(/404/);
  }, 300_000);
});
