// The permission gate of the kubernetes kind's manifests and charts (manifests.ts planManifests), with discovery's
// answers given: what is allowed under which permission, and the refusals' messages (document, kind, missing permission).
import { describe, expect, it } from "vitest";
import { type Discovered, parseManifests, planManifests, readinessOf } from "../src/kubernetes/manifests";

const runId = "55555555-5555-4555-8555-555555555555";
const ns = `opsbench-${runId}`;
const deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n";
const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.demo.opsbench.dev
spec:
  group: demo.opsbench.dev
  scope: Namespaced
  names: { kind: Widget, plural: widgets }
  versions: [{ name: v1, served: true, storage: true, subresources: { status: {} } }]
`;
const widget = "apiVersion: demo.opsbench.dev/v1\nkind: Widget\nmetadata:\n  name: demo\n";
const clusterRole = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n  namespace: somewhere\n";
const certificate = "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: tls\n";

/** What a cluster's discovery would say: the built-ins, and cert-manager's Certificate (namespaced, with status). */
const cluster = (apiVersion: string, kind: string): Discovered =>
  (
    ({
      "apps/v1/Deployment": { namespaced: true },
      "v1/Pod": { namespaced: true },
      "v1/ConfigMap": { namespaced: true },
      "v1/PersistentVolumeClaim": { namespaced: true },
      "batch/v1/Job": { namespaced: true },
      "rbac.authorization.k8s.io/v1/ClusterRole": { namespaced: false },
      "rbac.authorization.k8s.io/v1/Role": { namespaced: true },
      "cert-manager.io/v1/Certificate": { namespaced: true, status: true },
    }) as Record<string, Discovered>
  )[`${apiVersion}/${kind}`] ?? null;

const plan = (docs: string[], allow?: { customResources?: boolean; clusterScoped?: boolean; privilegedPods?: boolean }) =>
  planManifests(parseManifests(docs.join("---\n"), "helm"), cluster, allow, runId);

describe("the kubernetes permission gate", () => {
  it("applies namespaced built-in kinds of the list without any permission, into the run's namespace with its labels", () => {
    const p = plan([
      deployment,
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: seed\n",
      "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\n",
    ]);
    expect(p.map((o) => [o.doc.kind, o.namespaced, o.doc.metadata.namespace, o.doc.metadata.labels?.["opsbench-run"]])).toEqual([
      ["Deployment", true, ns, runId],
      ["Job", true, ns, runId],
      ["PersistentVolumeClaim", true, ns, runId],
    ]);
  });

  it("refuses a CRD and any cluster-scoped object without allow.clusterScoped, naming the document, its kind and the permission", () => {
    expect(() => plan([crd, widget, deployment], { customResources: true })).toThrow(
      "helm: document 1 (CustomResourceDefinition widgets.demo.opsbench.dev): apiextensions.k8s.io/v1 CustomResourceDefinition is cluster-scoped (a CustomResourceDefinition): the credential does not allow cluster-scoped objects (allow.clusterScoped, set by a workspace owner; docs/credentials.md)",
    );
    expect(() => plan([deployment, clusterRole])).toThrow(
      "helm: document 2 (ClusterRole reader): rbac.authorization.k8s.io/v1 ClusterRole is cluster-scoped: the credential does not allow cluster-scoped objects (allow.clusterScoped, set by a workspace owner; docs/credentials.md)",
    );
  });

  it("refuses a namespaced custom resource without allow.customResources, whether its CRD comes with it or the cluster serves it", () => {
    expect(() => plan([crd, widget, deployment], { clusterScoped: true })).toThrow(
      "helm: document 2 (Widget demo): demo.opsbench.dev/v1 Widget is a custom resource: the credential does not allow custom resources (allow.customResources, set by a workspace owner; docs/credentials.md)",
    );
    expect(() => plan([deployment, certificate])).toThrow(
      "helm: document 2 (Certificate tls): cert-manager.io/v1 Certificate is a custom resource: the credential does not allow custom resources",
    );
  });

  it("with both permissions: the CRD and the ClusterRole are cluster-scoped (namespace dropped), the custom resources wait for their status", () => {
    const p = plan([crd, widget, clusterRole, certificate, deployment], { customResources: true, clusterScoped: true });
    expect(p.map((o) => [o.doc.kind, o.namespaced, o.crd, o.custom, o.reportsStatus, o.doc.metadata.namespace ?? null])).toEqual([
      ["CustomResourceDefinition", false, true, false, false, null],
      ["Widget", true, false, true, true, ns],
      ["ClusterRole", false, false, false, false, null],
      ["Certificate", true, false, true, true, ns],
      ["Deployment", true, false, false, false, ns],
    ]);
    expect(p.every((o) => o.doc.metadata.labels?.["opsbench-run"] === runId)).toBe(true);
  });

  it("refuses a built-in kind off the list, a kind the cluster does not serve, another namespace, and documents without a Deployment", () => {
    const all = { customResources: true, clusterScoped: true };
    expect(() => plan([deployment, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"], all)).toThrow(
      /^helm: document 2 \(Pod p\): v1 Pod is not a kind opsbench applies \(namespaced built-in kinds: v1\/ConfigMap, /,
    );
    expect(() => plan([deployment, "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n"], all)).toThrow(
      "helm: document 2 (Gadget g): example.com/v1 Gadget is not served by the cluster (no CustomResourceDefinition of these documents defines it either)",
    );
    expect(() => plan([`${deployment}  namespace: kube-system\n`], all)).toThrow(
      'helm: document 1 (Deployment web) names namespace "kube-system": manifests go into the run\'s own namespace; leave it out',
    );
    expect(() => plan([clusterRole], all)).toThrow("helm: there is no Deployment to observe");
    expect(() => plan([deployment, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: opsbench-inventory\n"], all)).toThrow(
      "helm: document 2 (ConfigMap opsbench-inventory): ConfigMap opsbench-inventory is opsbench's record of the run's cluster-scoped objects: name yours otherwise",
    );
  });

  it("holds pods to the Pod Security Standards' baseline unless the credential allows privileged pods, naming the field", () => {
    const withPod = (pod: string) =>
      `${deployment}spec:\n  selector: { matchLabels: { app: web } }\n  template:\n    metadata: { labels: { app: web } }\n    spec:\n${pod}`;
    const container = (extra = "") => `      containers:\n        - name: web\n          image: nginx:1.27\n${extra}`;
    const refused = (field: string) => `helm: document 1 (Deployment web): ${field}`;
    const privileged = withPod(container("          securityContext: { privileged: true }\n"));
    expect(() => plan([privileged])).toThrow(
      `${refused("spec.template.spec.containers[0].securityContext.privileged: true")} is refused: pods must meet the Pod Security Standards' baseline`,
    );
    expect(() => plan([privileged])).toThrow(
      "the credential does not allow privileged pods (allow.privilegedPods, set by a workspace owner; docs/security.md)",
    );
    // The other ways to the node: its network, PIDs, folders and ports, capabilities beyond the baseline's.
    expect(() => plan([withPod(`      hostNetwork: true\n${container()}`)])).toThrow(
      refused("spec.template.spec.hostNetwork: true (the node's own network) is refused"),
    );
    expect(() => plan([withPod(`      hostPID: true\n${container()}`)])).toThrow(refused("spec.template.spec.hostPID: true"));
    expect(() => plan([withPod(`${container()}      volumes: [{ name: root, hostPath: { path: / } }]\n`)])).toThrow(
      refused("spec.template.spec.volumes[0].hostPath"),
    );
    expect(() => plan([withPod(container("          ports: [{ containerPort: 80, hostPort: 80 }]\n"))])).toThrow(
      refused("spec.template.spec.containers[0].ports[0].hostPort: 80"),
    );
    expect(() => plan([withPod(container("          securityContext: { capabilities: { add: [SYS_ADMIN] } }\n"))])).toThrow(
      refused("spec.template.spec.containers[0].securityContext.capabilities.add: SYS_ADMIN"),
    );
    const init = `      initContainers:\n        - name: setup\n          image: busybox\n          securityContext: { privileged: true }\n`;
    expect(() => plan([withPod(`${init}${container()}`)])).toThrow(
      refused("spec.template.spec.initContainers[0].securityContext.privileged: true"),
    );
    const job = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: seed\nspec:\n  template:\n    spec:\n      hostIPC: true\n";
    expect(() => plan([deployment, job])).toThrow(
      "helm: document 2 (Job seed): spec.template.spec.hostIPC: true (the node's own IPC) is refused",
    );
    const service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  externalIPs: [10.0.0.1]\n";
    expect(() =>
      planManifests(
        parseManifests(`${deployment}---\n${service}`),
        (a, k) => (k === "Service" ? { namespaced: true } : cluster(a, k)),
        undefined,
        runId,
      ),
    ).toThrow("manifests: document 2 (Service s): spec.externalIPs: 10.0.0.1 (a Service that takes traffic to other addresses) is refused");
    // What the baseline allows passes: a capability of its list, a non-root securityContext, an emptyDir.
    expect(
      plan([
        withPod(
          container("          securityContext: { capabilities: { add: [NET_BIND_SERVICE], drop: [ALL] }, runAsNonRoot: true }\n") +
            "      volumes: [{ name: tmp, emptyDir: {} }]\n",
        ),
      ]),
    ).toHaveLength(1);
    // The credential's owner may allow privileged pods: then the same documents pass.
    expect(plan([privileged], { privilegedPods: true })).toHaveLength(1);
  });

  it("names helm's source file of a document", () => {
    const docs = parseManifests(`---\n# Source: demo/templates/role.yaml\n${clusterRole}`, "helm");
    expect(docs[0]?.where).toBe("helm: document 1 (ClusterRole reader, from demo/templates/role.yaml)");
  });

  it("readiness: Ready/Available True is ready, False with a terminal reason fails, a status-reporting custom resource without one waits", () => {
    const p = { where: "helm: document 2 (Widget demo)", reportsStatus: true };
    expect(readinessOf(p, "Widget demo", undefined)).toBe("Widget demo: no Ready or Available condition yet");
    expect(readinessOf({ ...p, reportsStatus: false }, "Service s", undefined)).toBeNull();
    expect(readinessOf(p, "Widget demo", { conditions: [{ type: "Ready", status: "True" }] })).toBeNull();
    expect(readinessOf(p, "Widget demo", { conditions: [{ type: "Ready", status: "False", reason: "Provisioning" }] })).toBe(
      "Widget demo: Ready=False (Provisioning)",
    );
    expect(() =>
      readinessOf(p, "Widget demo", {
        conditions: [{ type: "Ready", status: "False", reason: "ProvisioningFailed", message: "no quota" }],
      }),
    ).toThrow("helm: document 2 (Widget demo): Widget demo failed: Ready=False (ProvisioningFailed: no quota)");
  });
});
