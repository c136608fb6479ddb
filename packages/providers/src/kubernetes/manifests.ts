// The user's own manifests, applied into the run's namespace with server-side apply (field manager "opsbench").
// Only namespaced kinds opsbench knows the path of; a document naming another namespace, a cluster-wide kind
// or an unknown one is refused before anything is applied, with the document's position in the message.
import { parseAllDocuments } from "yaml";
import { ProviderError } from "../provider";
import { type KubeClient, kubeCall } from "./kube-client";
import { namespaceOf, runLabels } from "./objects";

/** apiVersion/kind -> the collection path under a namespace. */
const PATHS: Record<string, string> = {
  "v1/ConfigMap": "api/v1/namespaces/{ns}/configmaps",
  "v1/Secret": "api/v1/namespaces/{ns}/secrets",
  "v1/Service": "api/v1/namespaces/{ns}/services",
  "v1/ServiceAccount": "api/v1/namespaces/{ns}/serviceaccounts",
  "apps/v1/Deployment": "apis/apps/v1/namespaces/{ns}/deployments",
  "apps/v1/StatefulSet": "apis/apps/v1/namespaces/{ns}/statefulsets",
  "autoscaling/v2/HorizontalPodAutoscaler": "apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers",
  "autoscaling/v1/HorizontalPodAutoscaler": "apis/autoscaling/v1/namespaces/{ns}/horizontalpodautoscalers",
  "networking.k8s.io/v1/Ingress": "apis/networking.k8s.io/v1/namespaces/{ns}/ingresses",
  "policy/v1/PodDisruptionBudget": "apis/policy/v1/namespaces/{ns}/poddisruptionbudgets",
};

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

/** The documents, checked; throws a ProviderError naming the first bad one. */
export function parseManifests(text: string, runId: string): { path: string; doc: Manifest }[] {
  const ns = namespaceOf(runId);
  const out: { path: string; doc: Manifest }[] = [];
  parseAllDocuments(text).forEach((d, i) => {
    if (d.errors.length > 0) throw new ProviderError(`manifests: document ${i + 1} is not valid YAML (${d.errors[0]?.code})`);
    const doc = d.toJS() as Manifest | null;
    if (doc === null) return;
    const where = `manifests: document ${i + 1} (${doc?.kind ?? "?"} ${doc?.metadata?.name ?? "?"})`;
    if (typeof doc !== "object" || !doc.apiVersion || !doc.kind || !doc.metadata?.name)
      throw new ProviderError(`${where} needs apiVersion, kind and metadata.name`);
    const path = PATHS[`${doc.apiVersion}/${doc.kind}`];
    if (!path)
      throw new ProviderError(
        `${where}: ${doc.apiVersion} ${doc.kind} is not a kind opsbench applies (namespaced: ${Object.keys(PATHS).join(", ")})`,
      );
    if (doc.metadata.namespace && doc.metadata.namespace !== ns)
      throw new ProviderError(
        `${where} names namespace "${doc.metadata.namespace}": manifests go into the run's own namespace; leave it out`,
      );
    out.push({
      path: `/${path.replace("{ns}", ns)}/${doc.metadata.name}`,
      doc: { ...doc, metadata: { ...doc.metadata, namespace: ns, labels: { ...doc.metadata.labels, ...runLabels(runId) } } },
    });
  });
  if (!out.some((m) => m.doc.kind === "Deployment")) throw new ProviderError("manifests: there is no Deployment to observe");
  return out;
}

export async function applyManifests(client: KubeClient, manifests: { path: string; doc: Manifest }[], signal: AbortSignal): Promise<void> {
  for (const { path, doc } of manifests) {
    await kubeCall(client, `applying ${doc.kind} ${doc.metadata.name}`, "PATCH", `${path}?fieldManager=opsbench&force=true`, {
      body: doc,
      contentType: "application/apply-patch+yaml",
      signal,
    });
  }
}
