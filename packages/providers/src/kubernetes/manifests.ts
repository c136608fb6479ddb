// The user's own manifests, applied into the run's namespace with server-side apply (field manager "opsbench")
// through the library's KubernetesObjectApi. Only namespaced kinds opsbench knows; a document naming another
// namespace, a cluster-wide kind or an unknown one is refused before anything is applied, with the document's
// position in the message.
import { parseAllDocuments } from "yaml";
import { ProviderError } from "../provider";
import { type KubeClient, kubeCall } from "./kube-client";
import { namespaceOf, runLabels } from "./objects";

/** The apiVersion/kind pairs opsbench applies: all namespaced. */
const KINDS = new Set([
  "v1/ConfigMap",
  "v1/Secret",
  "v1/Service",
  "v1/ServiceAccount",
  "apps/v1/Deployment",
  "apps/v1/StatefulSet",
  "autoscaling/v2/HorizontalPodAutoscaler",
  "autoscaling/v1/HorizontalPodAutoscaler",
  "networking.k8s.io/v1/Ingress",
  "policy/v1/PodDisruptionBudget",
]);

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

/** The documents, checked; throws a ProviderError naming the first bad one. */
export function parseManifests(text: string, runId: string): Manifest[] {
  const ns = namespaceOf(runId);
  const out: Manifest[] = [];
  parseAllDocuments(text).forEach((d, i) => {
    if (d.errors.length > 0) throw new ProviderError(`manifests: document ${i + 1} is not valid YAML (${d.errors[0]?.code})`);
    const doc = d.toJS() as Manifest | null;
    if (doc === null) return;
    const where = `manifests: document ${i + 1} (${doc?.kind ?? "?"} ${doc?.metadata?.name ?? "?"})`;
    if (typeof doc !== "object" || !doc.apiVersion || !doc.kind || !doc.metadata?.name)
      throw new ProviderError(`${where} needs apiVersion, kind and metadata.name`);
    if (!KINDS.has(`${doc.apiVersion}/${doc.kind}`))
      throw new ProviderError(
        `${where}: ${doc.apiVersion} ${doc.kind} is not a kind opsbench applies (namespaced: ${[...KINDS].join(", ")})`,
      );
    if (doc.metadata.namespace && doc.metadata.namespace !== ns)
      throw new ProviderError(
        `${where} names namespace "${doc.metadata.namespace}": manifests go into the run's own namespace; leave it out`,
      );
    out.push({ ...doc, metadata: { ...doc.metadata, namespace: ns, labels: { ...doc.metadata.labels, ...runLabels(runId) } } });
  });
  if (!out.some((m) => m.kind === "Deployment")) throw new ProviderError("manifests: there is no Deployment to observe");
  return out;
}

export async function applyManifests(client: KubeClient, manifests: Manifest[]): Promise<void> {
  for (const doc of manifests) {
    await kubeCall(client, `applying ${doc.kind} ${doc.metadata.name}`, () =>
      client.objects.patch(doc, undefined, undefined, "opsbench", true, "application/apply-patch+yaml"),
    );
  }
}
