// The user's own manifests (or a chart's rendered documents, helm.ts), judged before anything is applied and then
// applied in order (docs/kubernetes.md, "Manifests" and "Permissions"). Namespaced built-in kinds of the list below
// are always allowed; namespaced custom resources need the credential's allow.customResources, cluster-scoped objects
// (CustomResourceDefinitions included) its allow.clusterScoped. Namespaced or not is the cluster's discovery's answer
// (or, for a kind a CRD of the same documents defines, that CRD's scope), never a guess. Pods are held to the Pod
// Security Standards' baseline unless the credential's allow.privilegedPods (pod-security.ts). A refusal names the
// document, its kind (or the field) and the missing permission, before one object is made.
import type { KubernetesCredentialAllow } from "@opsbench/core";
import { parseAllDocuments } from "yaml";
import { ProviderError } from "../provider";
import { type Condition, conditionOf, describeCondition } from "./conditions";
import { type KubeClient, KubeApiError, kubeCall } from "./kube-client";
import { namespaceOf, RUN_LABEL, runLabels } from "./objects";
import { baselineProblem, podSecurityLabels, podSecurityLevel } from "./pod-security";

/** The namespaced built-in apiVersion/kind pairs opsbench applies without any permission. */
export const NAMESPACED_BUILT_IN_KINDS = new Set([
  "v1/ConfigMap",
  "v1/Secret",
  "v1/Service",
  "v1/ServiceAccount",
  "v1/PersistentVolumeClaim",
  "apps/v1/Deployment",
  "apps/v1/StatefulSet",
  "batch/v1/Job",
  "autoscaling/v2/HorizontalPodAutoscaler",
  "autoscaling/v1/HorizontalPodAutoscaler",
  "networking.k8s.io/v1/Ingress",
  "networking.k8s.io/v1/NetworkPolicy",
  "policy/v1/PodDisruptionBudget",
  "rbac.authorization.k8s.io/v1/Role",
  "rbac.authorization.k8s.io/v1/RoleBinding",
]);

/** The API groups Kubernetes itself serves: a namespaced kind of these not on the list is refused, whatever is allowed. */
const BUILT_IN_GROUPS = new Set([
  "",
  "apps",
  "batch",
  "autoscaling",
  "policy",
  "networking.k8s.io",
  "rbac.authorization.k8s.io",
  "storage.k8s.io",
  "scheduling.k8s.io",
  "coordination.k8s.io",
  "discovery.k8s.io",
  "events.k8s.io",
  "node.k8s.io",
  "certificates.k8s.io",
  "admissionregistration.k8s.io",
  "apiextensions.k8s.io",
  "apiregistration.k8s.io",
  "authentication.k8s.io",
  "authorization.k8s.io",
  "flowcontrol.apiserver.k8s.io",
  "internal.apiserver.k8s.io",
  "resource.k8s.io",
  "storagemigration.k8s.io",
]);

export const CRD_API_VERSION = "apiextensions.k8s.io/v1";
export const CRD_KIND = "CustomResourceDefinition";
export const INVENTORY_NAME = "opsbench-inventory";

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

/** An object as read back, for what its status says of its readiness. */
interface WithConditions {
  apiVersion?: string;
  kind?: string;
  status?: { conditions?: Condition[] };
}

/** A CustomResourceDefinition as read back, for which of its versions serve the status subresource. */
interface CustomResourceDefinition {
  apiVersion?: string;
  kind?: string;
  spec?: { versions?: { name: string; subresources?: { status?: unknown } }[] };
}

/** A document as read: where it is (for messages) and what it says. */
export interface ManifestDocument {
  where: string;
  doc: Manifest;
}

/** A cluster-scoped object by name: what the run records before it makes one, and deletes at teardown. */
export interface ClusterObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
}

/** A document judged: its scope and whether it is a CRD or a custom resource (and, for one, whether its CRD has a status subresource). */
export interface PlannedObject {
  where: string;
  doc: Manifest;
  namespaced: boolean;
  crd: boolean;
  custom: boolean;
  /** A custom resource whose CRD declares the status subresource: it must report Ready or Available True. */
  reportsStatus: boolean;
}

const groupOf = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.lastIndexOf("/")) : "");
const describe = (doc: Manifest) => `${doc.apiVersion} ${doc.kind}`;

/** The documents of `text` (YAML), each with apiVersion, kind and metadata.name; throws a ProviderError naming the first bad one. */
export function parseManifests(text: string, source: "manifests" | "helm" = "manifests"): ManifestDocument[] {
  const out: ManifestDocument[] = [];
  parseAllDocuments(text).forEach((d, i) => {
    if (d.errors.length > 0) throw new ProviderError(`${source}: document ${i + 1} is not valid YAML (${d.errors[0]?.code})`);
    const doc = d.toJS() as Manifest | null;
    if (doc === null) return;
    // helm template says where each document came from ("# Source: chart/templates/x.yaml").
    const comment = `${d.commentBefore ?? ""}\n${(d.contents as { commentBefore?: string } | null)?.commentBefore ?? ""}`;
    const from = /Source: (\S+)/.exec(comment)?.[1];
    const where = `${source}: document ${i + 1} (${doc?.kind ?? "?"} ${doc?.metadata?.name ?? "?"}${from ? `, from ${from}` : ""})`;
    if (typeof doc !== "object" || !doc.apiVersion || !doc.kind || !doc.metadata?.name)
      throw new ProviderError(`${where} needs apiVersion, kind and metadata.name`);
    out.push({ where, doc });
  });
  return out;
}

/** The kinds the documents' own CRDs define, as "group/version/Kind" -> namespaced, with whether each has the status subresource. */
function kindsDefinedBy(docs: ManifestDocument[]): Map<string, { namespaced: boolean; status: boolean }> {
  const defined = new Map<string, { namespaced: boolean; status: boolean }>();
  for (const { doc } of docs) {
    if (doc.apiVersion !== CRD_API_VERSION || doc.kind !== CRD_KIND) continue;
    const spec = doc.spec as
      | { group?: string; scope?: string; names?: { kind?: string }; versions?: { name?: string; subresources?: { status?: unknown } }[] }
      | undefined;
    for (const v of spec?.versions ?? [])
      if (spec?.group && spec.names?.kind && v.name)
        defined.set(`${spec.group}/${v.name}/${spec.names.kind}`, {
          namespaced: spec.scope !== "Cluster",
          status: v.subresources?.status !== undefined,
        });
  }
  return defined;
}

/** What the cluster says of a kind: namespaced or not, or null when it does not serve it. */
export type Discovered = { namespaced: boolean; status?: boolean } | null;

/**
 * Judges every document against the permission (pure: `discovered` answers for each apiVersion/kind); throws a
 * ProviderError for the first one refused, naming it, its kind and what is missing. Returns the documents with the
 * run's labels, namespaced ones in the run's namespace, cluster-scoped ones without one.
 */
export function planManifests(
  docs: ManifestDocument[],
  discovered: (apiVersion: string, kind: string) => Discovered,
  allow: KubernetesCredentialAllow | undefined,
  runId: string,
): PlannedObject[] {
  const ns = namespaceOf(runId);
  const defined = kindsDefinedBy(docs);
  const planned = docs.map(({ where, doc }): PlannedObject => {
    const crd = doc.apiVersion === CRD_API_VERSION && doc.kind === CRD_KIND;
    const own = defined.get(`${doc.apiVersion}/${doc.kind}`);
    const scope = crd ? { namespaced: false } : (own ?? discovered(doc.apiVersion, doc.kind));
    if (!scope)
      throw new ProviderError(
        `${where}: ${describe(doc)} is not served by the cluster (no CustomResourceDefinition of these documents defines it either)`,
      );
    const builtIn = BUILT_IN_GROUPS.has(groupOf(doc.apiVersion));
    const level = podSecurityLevel(allow);
    const problem = level === "baseline" ? baselineProblem(doc) : null;
    if (problem)
      throw new ProviderError(
        `${where}: ${problem} is refused: pods must meet the Pod Security Standards' baseline (no privileged container, none of the node's network, PIDs, IPC, folders or ports, no added capabilities beyond the baseline's, no Service externalIPs); the credential does not allow privileged pods (allow.privilegedPods, set by a workspace owner; docs/security.md)`,
      );
    // A namespace of the documents' own (allow.clusterScoped) is held to the same level as the run's.
    const labels = {
      ...doc.metadata.labels,
      ...runLabels(runId),
      ...(doc.apiVersion === "v1" && doc.kind === "Namespace" ? podSecurityLabels(level) : {}),
    };
    if (!scope.namespaced) {
      if (!allow?.clusterScoped)
        throw new ProviderError(
          `${where}: ${describe(doc)} is cluster-scoped${crd ? " (a CustomResourceDefinition)" : ""}: the credential does not allow cluster-scoped objects (allow.clusterScoped, set by a workspace owner; docs/credentials.md)`,
        );
      const { namespace: _dropped, ...metadata } = doc.metadata;
      return { where, doc: { ...doc, metadata: { ...metadata, labels } }, namespaced: false, crd, custom: !builtIn, reportsStatus: false };
    }
    if (builtIn && !NAMESPACED_BUILT_IN_KINDS.has(`${doc.apiVersion}/${doc.kind}`))
      throw new ProviderError(
        `${where}: ${describe(doc)} is not a kind opsbench applies (namespaced built-in kinds: ${[...NAMESPACED_BUILT_IN_KINDS].join(", ")})`,
      );
    if (!builtIn && !allow?.customResources)
      throw new ProviderError(
        `${where}: ${describe(doc)} is a custom resource: the credential does not allow custom resources (allow.customResources, set by a workspace owner; docs/credentials.md)`,
      );
    if (doc.apiVersion === "v1" && doc.kind === "ConfigMap" && doc.metadata.name === INVENTORY_NAME)
      throw new ProviderError(
        `${where}: ConfigMap ${INVENTORY_NAME} is opsbench's record of the run's cluster-scoped objects: name yours otherwise`,
      );
    if (doc.metadata.namespace && doc.metadata.namespace !== ns)
      throw new ProviderError(
        `${where} names namespace "${doc.metadata.namespace}": manifests go into the run's own namespace; leave it out`,
      );
    return {
      where,
      doc: { ...doc, metadata: { ...doc.metadata, namespace: ns, labels } },
      namespaced: true,
      crd: false,
      custom: !builtIn,
      reportsStatus: !builtIn && (own?.status ?? scope.status ?? false),
    };
  });
  if (!planned.some((p) => p.doc.kind === "Deployment" && p.doc.apiVersion === "apps/v1"))
    throw new ProviderError(`${docs[0]?.where.split(":")[0] ?? "manifests"}: there is no Deployment to observe`);
  return planned;
}

/**
 * The documents judged as a cluster serving only the built-in kinds would judge them, with no permission: what a
 * preset of namespaced built-in objects must pass without a cluster (infra-presets.test.ts).
 */
export function planBuiltInManifests(text: string, runId: string): Manifest[] {
  const builtIn = (apiVersion: string, kind: string): Discovered =>
    NAMESPACED_BUILT_IN_KINDS.has(`${apiVersion}/${kind}`) ? { namespaced: true } : null;
  return planManifests(parseManifests(text), builtIn, undefined, runId).map((p) => p.doc);
}

/** The cluster's discovery of one kind. */
async function discover(client: KubeClient, apiVersion: string, kind: string): Promise<Discovered> {
  try {
    const r = await kubeCall(client, `looking up ${apiVersion} ${kind} in the cluster's discovery`, () =>
      client.objects.discover(apiVersion, kind),
    );
    return r ? { namespaced: r.namespaced } : null;
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 404) return null; // the group/version is not served
    throw err;
  }
}

/** Whether the cluster's CRD of a served custom kind declares the status subresource (false when it cannot be read). */
async function crdHasStatus(client: KubeClient, apiVersion: string, kind: string): Promise<boolean> {
  try {
    const r = await client.objects.discover(apiVersion, kind);
    if (!r) return false;
    const crd = await client.objects.read<CustomResourceDefinition>({
      apiVersion: CRD_API_VERSION,
      kind: CRD_KIND,
      metadata: { name: `${r.name}.${groupOf(apiVersion)}` },
    });
    const version = apiVersion.slice(apiVersion.lastIndexOf("/") + 1);
    const versions = crd.spec?.versions ?? [];
    return versions.some((v) => v.name === version && v.subresources?.status !== undefined);
  } catch {
    return false;
  }
}

/** The documents judged against the credential's permission with the cluster's discovery; nothing is made. */
export async function gateManifests(
  client: KubeClient,
  docs: ManifestDocument[],
  allow: KubernetesCredentialAllow | undefined,
  runId: string,
): Promise<PlannedObject[]> {
  const defined = kindsDefinedBy(docs);
  const answers = new Map<string, Discovered>();
  for (const { doc } of docs) {
    const key = `${doc.apiVersion}/${doc.kind}`;
    if (answers.has(key) || defined.has(key) || (doc.apiVersion === CRD_API_VERSION && doc.kind === CRD_KIND)) continue;
    const found = await discover(client, doc.apiVersion, doc.kind);
    const custom = !BUILT_IN_GROUPS.has(groupOf(doc.apiVersion));
    answers.set(
      key,
      found && custom && found.namespaced ? { ...found, status: await crdHasStatus(client, doc.apiVersion, doc.kind) } : found,
    );
  }
  return planManifests(docs, (apiVersion, kind) => answers.get(`${apiVersion}/${kind}`) ?? null, allow, runId);
}

export const clusterObjectRef = (doc: Manifest): ClusterObjectRef => ({
  apiVersion: doc.apiVersion,
  kind: doc.kind,
  name: doc.metadata.name,
});
const refName = (r: ClusterObjectRef) => `${r.kind} ${r.name}`;

/** The inventory ConfigMap in the run's namespace: the cluster-scoped objects the run makes, written before it makes them. */
export function inventoryObject(runId: string, refs: ClusterObjectRef[]): Manifest {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: INVENTORY_NAME, namespace: namespaceOf(runId), labels: runLabels(runId) },
    data: { clusterObjects: JSON.stringify(refs) },
  };
}

/** The refs of a run's inventory ConfigMap ([] when there is none, or its namespace is gone). */
export async function readInventory(client: KubeClient, runId: string): Promise<ClusterObjectRef[]> {
  try {
    const cm = await kubeCall(client, `reading ConfigMap ${INVENTORY_NAME}`, () =>
      client.core.readNamespacedConfigMap({ name: INVENTORY_NAME, namespace: namespaceOf(runId) }),
    );
    const refs = JSON.parse(cm.data?.clusterObjects ?? "[]") as ClusterObjectRef[];
    return Array.isArray(refs)
      ? refs.filter((r) => r && typeof r.apiVersion === "string" && typeof r.kind === "string" && typeof r.name === "string")
      : [];
  } catch (err) {
    // 403: a kubeconfig that may not read ConfigMaps made no inventory (its runs could not have written one).
    if (err instanceof KubeApiError && (err.status === 404 || err.status === 403)) return [];
    throw err;
  }
}

type Wait = (ready: () => Promise<string | null>, waiting: string) => Promise<void>;

/**
 * Makes the planned objects in order: CRDs (each must reach Established), other cluster-scoped objects, then the
 * namespaced ones with server-side apply. Cluster-scoped objects are created, never applied: one that exists already
 * (another run's, or the cluster's own) is refused, never taken over.
 */
export async function applyPlanned(client: KubeClient, plan: PlannedObject[], wait: Wait): Promise<void> {
  const create = async (p: PlannedObject) => {
    try {
      await kubeCall(client, `creating ${p.doc.kind} ${p.doc.metadata.name}`, () => client.objects.create(client.model(p.doc)));
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 409)
        throw new ProviderError(
          `${p.where}: ${p.doc.kind} ${p.doc.metadata.name} exists on the cluster already: opsbench makes cluster-scoped objects only anew, it never takes one over`,
        );
      throw err;
    }
  };
  const crds = plan.filter((p) => p.crd);
  for (const p of crds) await create(p);
  for (const p of crds)
    await wait(async () => {
      const crd = await kubeCall(client, `reading CustomResourceDefinition ${p.doc.metadata.name}`, () =>
        client.objects.read<WithConditions>({ apiVersion: CRD_API_VERSION, kind: CRD_KIND, metadata: { name: p.doc.metadata.name } }),
      );
      const established = conditionOf(crd, "Established");
      return established?.status === "True" ? null : describeCondition(established, "Established");
    }, `CustomResourceDefinition ${p.doc.metadata.name} to be Established`);
  for (const p of plan.filter((q) => !q.namespaced && !q.crd)) await create(p);
  for (const p of plan.filter((q) => q.namespaced))
    await kubeCall(client, `applying ${p.doc.kind} ${p.doc.metadata.name}`, () =>
      client.objects.patch(client.model(p.doc), undefined, undefined, "opsbench", true, "application/apply-patch+yaml"),
    );
}

/** A condition False with one of these reasons will not turn True by waiting. */
const TERMINAL_REASON = /fail|error|invalid|denied|forbidden|exceeded|conflict|notfound/i;

/** What one object's status says of its readiness: null = ready (or nothing to wait for), a string = not yet; throws when it failed. */
export function readinessOf(
  p: Pick<PlannedObject, "where" | "reportsStatus">,
  name: string,
  status: { conditions?: Condition[] } | undefined,
): string | null {
  const conditions = (status?.conditions ?? []).filter((c) => c.type === "Ready" || c.type === "Available");
  if (conditions.length === 0) return p.reportsStatus ? `${name}: no Ready or Available condition yet` : null;
  for (const c of conditions) {
    if (c.status === "True") continue;
    const said = describeCondition(c);
    if (c.status === "False" && c.reason && TERMINAL_REASON.test(c.reason)) throw new ProviderError(`${p.where}: ${name} failed: ${said}`);
    return `${name}: ${said}`;
  }
  return null;
}

/** Waits until every applied object whose status carries Ready/Available conditions (or must: a custom resource with a status subresource) says True. */
export async function waitForConditions(client: KubeClient, plan: PlannedObject[], wait: Wait): Promise<void> {
  const watched = plan.filter((p) => !p.crd);
  const pending = new Set(watched);
  const names = (ps: Iterable<PlannedObject>) => [...ps].map((p) => `${p.doc.kind} ${p.doc.metadata.name}`).join(", ");
  const waitedFor = watched.filter((p) => p.reportsStatus);
  await wait(
    async () => {
      for (const p of [...pending]) {
        const obj = await kubeCall(client, `reading ${p.doc.kind} ${p.doc.metadata.name}`, () =>
          client.objects.read<WithConditions>({
            apiVersion: p.doc.apiVersion,
            kind: p.doc.kind,
            metadata: { name: p.doc.metadata.name, namespace: p.doc.metadata.namespace },
          }),
        );
        const notYet = readinessOf(p, `${p.doc.kind} ${p.doc.metadata.name}`, obj.status);
        if (notYet !== null) return notYet;
        pending.delete(p);
      }
      return null;
    },
    `the applied objects to be Ready or Available${waitedFor.length ? ` (custom resources reporting status: ${names(waitedFor)})` : ""}`,
  );
}

/** Reads one cluster-scoped object: null when it (or its kind) is gone. */
async function readClusterObject(client: KubeClient, r: ClusterObjectRef): Promise<Manifest | null> {
  try {
    return await kubeCall(client, `reading ${refName(r)}`, () =>
      client.objects.read<Manifest>({ apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name } }),
    );
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 404) return null;
    // The library's own refusal when discovery no longer knows the kind (its CRD was deleted first).
    if (err instanceof Error && /Unrecognized API version and kind/.test(err.message)) return null;
    throw err;
  }
}

/** Labelled objects of these kinds (cluster-wide lists); kinds the cluster no longer serves, or the credential may not list, give none. */
export async function labelledClusterObjects(
  client: KubeClient,
  kinds: Pick<ClusterObjectRef, "apiVersion" | "kind">[],
  labelSelector: string,
) {
  const found: (ClusterObjectRef & { run: string })[] = [];
  const seen = new Set<string>();
  for (const { apiVersion, kind } of kinds) {
    if (seen.has(`${apiVersion}/${kind}`)) continue;
    seen.add(`${apiVersion}/${kind}`);
    try {
      const list = await kubeCall(client, `listing ${kind} objects labelled ${labelSelector}`, () =>
        client.objects.list(apiVersion, kind, undefined, undefined, undefined, undefined, undefined, labelSelector),
      );
      for (const o of list.items)
        if (o.metadata?.name && !o.metadata.namespace)
          found.push({ apiVersion, kind, name: o.metadata.name, run: o.metadata.labels?.[RUN_LABEL] ?? "" });
    } catch (err) {
      if (err instanceof KubeApiError && [403, 404].includes(err.status)) continue;
      if (err instanceof Error && /Unrecognized API version and kind|Failed to fetch resource metadata/.test(err.message)) continue;
      throw err;
    }
  }
  return found;
}

/**
 * Deletes the run's cluster-scoped objects, other kinds before CRDs (a CRD's deletion takes its custom resources with
 * it), and waits until they are gone. One not labelled with this run (it existed before: the run's create was
 * refused) is left alone. Returns what was deleted.
 */
export async function deleteClusterObjects(
  client: KubeClient,
  runId: string,
  refs: ClusterObjectRef[],
  opts: { timeoutMs: number; sleep: (ms: number) => Promise<void> },
): Promise<string[]> {
  const unique = [...new Map(refs.map((r) => [`${r.apiVersion}/${r.kind}/${r.name}`, r])).values()];
  const ordered = [...unique.filter((r) => r.kind !== CRD_KIND), ...unique.filter((r) => r.kind === CRD_KIND)];
  const deleted: ClusterObjectRef[] = [];
  for (const r of ordered) {
    const obj = await readClusterObject(client, r);
    if (!obj || obj.metadata.labels?.[RUN_LABEL] !== runId) continue;
    try {
      // Background: the object goes as soon as its own finalizers are done (a CRD's: its custom resources deleted).
      // Foreground added the garbage collector's finalizer too, and a control plane's collector pauses while it
      // resyncs after API changes (a CRD made and deleted moments before): a CRD with no dependents was still there
      // 120 s after its deletion in a test on a busy machine. Whatever an object owns goes after it all the same.
      await kubeCall(client, `deleting ${refName(r)}`, () =>
        client.objects.delete(
          { apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name } },
          undefined,
          undefined,
          undefined,
          undefined,
          "Background",
        ),
      );
    } catch (err) {
      if (!(err instanceof KubeApiError && err.status === 404)) throw err;
    }
    deleted.push(r);
  }
  const deadline = Date.now() + opts.timeoutMs;
  for (const r of deleted) {
    while ((await readClusterObject(client, r)) !== null) {
      if (Date.now() > deadline)
        throw new ProviderError(`${refName(r)} was still there ${Math.round(opts.timeoutMs / 1000)} s after it was deleted`);
      await opts.sleep(500);
    }
  }
  return deleted.map(refName);
}
