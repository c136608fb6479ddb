// The `kubernetes` target kind (docs/kubernetes.md): any cluster a workspace kubeconfig reaches. Deploy makes
// the namespace opsbench-<run> with a Deployment, a Service and an HPA (or applies the user's manifests into
// it); reset waits for the baseline (ready = min replicas, the HPA settled); observe records replicas, the
// HPA's utilisation, restarts and nodes, and puts the namespace's events on the timeline; teardown deletes the
// namespace (and any other namespace labelled with the run) and waits until it is gone.
import { randomBytes } from "node:crypto";
import { type CredentialSecret, type KubernetesSpec, kubernetesReplicas, kubernetesSpec, portForwardFlag } from "@opsbench/core";
import { type Deployment, type InfraPoint, type KindProvider, type ProviderContext, ProviderError, type ReaperContext } from "../provider";
import { isConflict, isNotFound, type KubeClient, kubeCall, kubeClientOf } from "./kube-client";
import { renderChart } from "./helm";
import {
  applyPlanned,
  type ClusterObjectRef,
  clusterObjectRef,
  CRD_API_VERSION,
  CRD_KIND,
  deleteClusterObjects,
  gateManifests,
  inventoryObject,
  labelledClusterObjects,
  parseManifests,
  readInventory,
  waitForConditions,
} from "./manifests";
import { APP_NAME, DB_NAME, databaseObjects, namespaceObject, namespaceOf, RUN_LABEL } from "./objects";
import { heldNodes, holdNodes, releaseNodes } from "./nodes";
import { observeNamespace } from "./observe";
import { podSecurityLevel } from "./pod-security";
import { closePortForward, openPortForward } from "./port-forward";
import { sleep } from "./sleep";
import { flavourOf } from "./flavours";
import type { KubernetesState } from "./state";
import { waitFor } from "./wait-for";

export type { KubernetesState } from "./state";

/** The clients for the run's kubeconfig, their requests ending with `signal`; a run without one (or with another kind) is refused before anything is made. */
export async function clientFor(
  ctx: Pick<ProviderContext, "credential" | "loadHosts" | "protectedPorts">,
  signal?: AbortSignal,
): Promise<KubeClient> {
  const c: CredentialSecret | undefined = ctx.credential;
  if (!c) throw new ProviderError("the kubernetes target needs a credential (a kubeconfig): name one in the spec's credential");
  if (c.kind !== "kubernetes")
    throw new ProviderError(`the target's credential is a ${c.kind} credential; the kubernetes kind needs a kubeconfig`);
  return kubeClientOf(c, { signal, loadHosts: ctx.loadHosts, protectedPorts: ctx.protectedPorts });
}

async function deploymentNotReady(client: KubeClient, namespace: string, name: string, want: number): Promise<string | null> {
  const d = await kubeCall(client, `reading Deployment ${name}`, () => client.apps.readNamespacedDeployment({ name, namespace }));
  const ready = d.status?.readyReplicas ?? 0;
  return ready >= want && (d.spec?.replicas ?? 0) <= want ? null : `${ready}/${d.spec?.replicas ?? "?"} replicas ready, want ${want}`;
}

async function hpaNotSettled(client: KubeClient, namespace: string, name: string, min: number): Promise<string | null> {
  const h = await kubeCall(client, `reading HPA ${name}`, () =>
    client.autoscaling.readNamespacedHorizontalPodAutoscaler({ name, namespace }),
  );
  const current = h.status?.currentReplicas ?? 0;
  // Without pod metrics (no metrics server) the HPA cannot compute a wish: it keeps desiredReplicas at 0 and says
  // ScalingActive=False; it then changes nothing, so current = min is the baseline.
  const blind = h.status?.conditions?.some((c) => c.type === "ScalingActive" && c.status === "False") ?? false;
  const desired = h.status?.desiredReplicas ?? 0;
  return current === min && (desired === min || (blind && desired === 0))
    ? null
    : `the HPA has ${current} replicas and wants ${desired}, baseline ${min}`;
}

/**
 * Deletes the run's cluster-scoped objects (those given, its inventory's, and those of the same kinds and of the CRDs
 * labelled with the run), then its namespaces, and waits until all are gone.
 */
export async function deleteRunObjects(
  client: KubeClient,
  runId: string,
  recorded: ClusterObjectRef[],
  opts: { timeoutMs?: number } = {},
): Promise<{ clusterObjects: string[]; namespaces: string[] }> {
  const known = [...recorded, ...(await readInventory(client, runId))];
  const kinds = [{ apiVersion: CRD_API_VERSION, kind: CRD_KIND }, ...known];
  const labelled = await labelledClusterObjects(client, kinds, `${RUN_LABEL}=${runId}`);
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const clusterObjects = await deleteClusterObjects(client, runId, [...known, ...labelled], { timeoutMs, sleep });
  return { clusterObjects, namespaces: await deleteRunNamespaces(client, runId, { timeoutMs }) };
}

/** Namespaces labelled with `labelSelector` (the run's, or every run's). */
async function labelledNamespaces(client: KubeClient, labelSelector: string, doing: string) {
  return (await kubeCall(client, doing, () => client.core.listNamespace({ labelSelector }))).items;
}

/** Deletes the run's namespaces (by name and by label) and waits until every one is gone. */
export async function deleteRunNamespaces(client: KubeClient, runId: string, opts: { timeoutMs?: number } = {}): Promise<string[]> {
  const labelled = await labelledNamespaces(client, `${RUN_LABEL}=${runId}`, "listing the run's namespaces");
  const names = [...new Set([namespaceOf(runId), ...labelled.map((n) => n.metadata?.name ?? "").filter(Boolean)])];
  for (const name of names) {
    try {
      await kubeCall(client, `deleting namespace ${name}`, () => client.core.deleteNamespace({ name, propagationPolicy: "Foreground" }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const deadline = Date.now() + timeoutMs;
  for (const name of names) {
    for (;;) {
      try {
        await kubeCall(client, `reading namespace ${name}`, () => client.core.readNamespace({ name }));
      } catch (err) {
        if (isNotFound(err)) break;
        throw err;
      }
      if (Date.now() > deadline)
        throw new ProviderError(`namespace ${name} was still there ${Math.round(timeoutMs / 1000)} s after it was deleted`);
      await sleep(1000);
    }
  }
  return names;
}

async function endpointOf(client: KubeClient, spec: KubernetesSpec, namespace: string, signal: AbortSignal): Promise<string> {
  if (spec.endpoint) return spec.endpoint.replace(/\/+$/, "");
  let address = "";
  await waitFor(
    async () => {
      const svc = await kubeCall(client, `reading Service ${APP_NAME}`, () =>
        client.core.readNamespacedService({ name: APP_NAME, namespace }),
      );
      const ingress = svc.status?.loadBalancer?.ingress?.[0];
      address = ingress?.ip ?? ingress?.hostname ?? "";
      return address ? null : "no load-balancer address yet (clusters without one: give the spec an endpoint, e.g. an ingress URL)";
    },
    spec.readyTimeoutMs,
    "the Service's load-balancer address",
    signal,
  );
  return `http://${address}`;
}

export const kubernetes: KindProvider<"kubernetes", KubernetesState> = {
  kind: "kubernetes",
  spec: kubernetesSpec,
  // Only a port-forward is opsbench's own (opened on this machine). An ingress URL or OpenFaaS gateway the user gives is
  // judged before deploy; the Service's load-balancer address or the Knative URL after it, like a typed URL: the cluster
  // is the one the user's kubeconfig names, and it may report any address.
  outsideEndpoint: (spec) => !spec.portForward,
  knownEndpoint: (spec) => flavourOf(spec).knownEndpoint(spec) ?? spec.endpoint ?? null,

  async deploy(spec, ctx) {
    const client = await clientFor(ctx, ctx.signal);
    const ns = namespaceOf(ctx.runId);
    // The user's documents (or the chart's, rendered), judged against the credential's permission before anything is made.
    const text = spec.helm ? await renderChart(spec.helm, ns, { binary: ctx.helm, signal: ctx.signal }) : spec.manifests;
    const allow = ctx.credential?.kind === "kubernetes" ? ctx.credential.allow : undefined;
    const plan = text ? await gateManifests(client, parseManifests(text, spec.helm ? "helm" : "manifests"), allow, ctx.runId) : null;
    const manifests = plan?.map((p) => p.doc) ?? null;
    // Holding nodes labels Node objects: a cluster-scoped change, only where the credential's owner allowed those.
    if (spec.nodes !== undefined && !allow?.clusterScoped)
      throw new ProviderError(
        `nodes: holding ${spec.nodes} node(s) labels cluster-scoped Node objects: the credential does not allow cluster-scoped objects (allow.clusterScoped, set by a workspace owner; docs/credentials.md)`,
      );
    const flavour = flavourOf(spec);
    const { min } = kubernetesReplicas(spec);
    const deployment = manifests
      ? (spec.deployment ?? manifests.find((m) => m.kind === "Deployment")?.metadata.name ?? APP_NAME)
      : APP_NAME;
    const hpa = manifests ? null : spec.targetCpuPercent !== undefined ? APP_NAME : null;
    const state: KubernetesState = {
      namespace: ns,
      runId: ctx.runId,
      deployment,
      hpa,
      minReplicas: min,
      readyTimeoutMs: spec.readyTimeoutMs,
      flavour: spec.flavour ?? "deployment",
      ...flavour.state,
      ...(spec.nodes !== undefined ? { nodes: spec.nodes } : {}),
      ...(plan ? { clusterObjects: plan.filter((p) => !p.namespaced).map((p) => clusterObjectRef(p.doc)) } : {}),
    };
    // Saved before anything exists: a crash from here on leaves a trail teardown (and the reaper) follow.
    await ctx.saveState(state);
    try {
      await kubeCall(client, `creating namespace ${ns}`, () =>
        client.core.createNamespace({
          body: namespaceObject(ctx.runId, flavour.namespaceAnnotations, podSecurityLevel(allow)),
        }),
      );
    } catch (err) {
      if (isConflict(err))
        throw new ProviderError(`namespace ${ns} exists already: another attempt of this run made it; it is deleted at teardown`);
      throw err;
    }
    if (spec.nodes !== undefined) {
      const names = await holdNodes(client, ctx.runId, spec.nodes);
      await ctx.event?.("info", `holding ${names.length} node(s) for the run's pods: ${names.join(", ")}`, { nodes: names });
    }
    if (plan) {
      const wait = (ready: () => Promise<string | null>, waiting: string) => waitFor(ready, spec.readyTimeoutMs, waiting, ctx.signal);
      const clusterObjects = state.clusterObjects ?? [];
      // The inventory before the first cluster-scoped object: a crash leaves a record the reaper reads.
      if (clusterObjects.length > 0)
        await kubeCall(client, "creating the inventory ConfigMap", () =>
          client.core.createNamespacedConfigMap({ namespace: ns, body: inventoryObject(ctx.runId, clusterObjects) }),
        );
      await applyPlanned(client, plan, wait);
      await waitForConditions(client, plan, wait);
      if (clusterObjects.length > 0)
        await ctx.event?.("info", `cluster-scoped objects made: ${clusterObjects.map((r) => `${r.kind} ${r.name}`).join(", ")}`);
    } else {
      const db = databaseObjects(spec, ctx.runId, randomBytes(18).toString("base64url"));
      if (db) {
        // The database first: the app exits at start without it.
        await kubeCall(client, `creating Secret ${DB_NAME}`, () => client.core.createNamespacedSecret({ namespace: ns, body: db.secret }));
        await kubeCall(client, `creating Deployment ${DB_NAME}`, () =>
          client.apps.createNamespacedDeployment({ namespace: ns, body: db.deployment }),
        );
        await kubeCall(client, `creating Service ${DB_NAME}`, () =>
          client.core.createNamespacedService({ namespace: ns, body: db.service }),
        );
        await waitFor(
          () => deploymentNotReady(client, ns, DB_NAME, 1),
          spec.readyTimeoutMs,
          `the database (Deployment ${DB_NAME}) to be ready`,
          ctx.signal,
        );
        await ctx.event?.(
          "info",
          `database ${DB_NAME} (${spec.database?.image}) ready in ${ns}; its URL is given as ${spec.database?.urlEnv}`,
        );
      }
      await flavour.create(client, { ...spec, image: spec.image ?? "" }, ctx.runId, ns);
    }
    await ctx.event?.("info", `namespace ${ns} created on ${client.server}`, { namespace: ns });
    // What the flavour's controller makes from its objects (a Knative Revision's Deployment, an OpenFaaS Function's).
    const made = await flavour.ready(client, spec, ns, min, ctx);
    if (made.deployment !== undefined) {
      state.deployment = made.deployment;
      state.knative = made.knative;
      await ctx.saveState(state);
    }
    const replicasOfDeployment = manifests ? 1 : min;
    await waitFor(
      () => deploymentNotReady(client, ns, state.deployment, replicasOfDeployment),
      spec.readyTimeoutMs,
      `Deployment ${state.deployment} to be ready`,
      ctx.signal,
    );
    if (spec.portForward) {
      const endpoint = await openPortForward(client, ns, state.deployment, spec.port);
      await ctx.event?.("warn", `port-forward: the load goes to ${endpoint}, each connection forwarded to the next ready pod`);
      return { endpoint, state, flags: [portForwardFlag()] };
    }
    const endpoint = made.url ?? (await endpointOf(client, spec, ns, ctx.signal));
    return { endpoint, state };
  },

  async reset(dep, ctx) {
    const client = await clientFor(ctx, ctx.signal);
    const { namespace: ns, deployment, hpa, minReplicas, readyTimeoutMs } = dep.state;
    await waitFor(
      () => deploymentNotReady(client, ns, deployment, minReplicas),
      readyTimeoutMs,
      `the baseline (${minReplicas} ready replicas)`,
      ctx.signal,
    );
    if (hpa)
      await waitFor(() => hpaNotSettled(client, ns, hpa, minReplicas), readyTimeoutMs, `the HPA to settle at ${minReplicas}`, ctx.signal);
  },

  async *observe(dep: Deployment<KubernetesState>, window, ctx): AsyncIterable<InfraPoint> {
    yield* observeNamespace(await clientFor(ctx, window.signal), dep.state, window, ctx);
  },

  async teardown(dep, ctx) {
    const { runId } = dep.state;
    if (!runId) return;
    await closePortForward(namespaceOf(runId));
    const client = await clientFor(ctx);
    const deleted = await deleteRunObjects(client, runId, dep.state.clusterObjects ?? [], {
      timeoutMs: (dep.state.readyTimeoutMs ?? 180_000) + 60_000,
    });
    // After the pods are gone, so no pod of the run lands on a node another run takes next.
    const released = await releaseNodes(client, runId);
    ctx.log("kubernetes objects deleted", { ...deleted, releasedNodes: released });
  },

  reaper: {
    async listRuns(ctx: ReaperContext) {
      const client = await clientFor(ctx, ctx.signal);
      const items = [...(await labelledNamespaces(client, RUN_LABEL, "listing opsbench's namespaces")), ...(await heldNodes(client))];
      // A run's CRDs too (labelled like every object it makes), should its namespace be gone already.
      const crds = await labelledClusterObjects(client, [{ apiVersion: CRD_API_VERSION, kind: CRD_KIND }], RUN_LABEL);
      return [...new Set([...items.map((n) => n.metadata?.labels?.[RUN_LABEL] ?? ""), ...crds.map((c) => c.run)].filter(Boolean))];
    },
    async deleteRun(runId, ctx) {
      const client = await clientFor(ctx, ctx.signal);
      await deleteRunObjects(client, runId, []);
      await releaseNodes(client, runId);
    },
  },
};
