// The knative-service flavour of the kubernetes kind (docs/kubernetes.md): a serving.knative.dev/v1 Service in the
// run's namespace, from which Knative's controller makes a Configuration, a Revision, the Revision's Deployment
// (<revision>-deployment) and its PodAutoscaler. Ready is read from the conditions Knative's controllers set: the
// Service's ConfigurationsReady (its Configuration's latest Revision is Ready: its Deployment's pods are up and its
// PodAutoscaler reached the initial scale) when the load goes to an endpoint of the user's or by port-forward, and
// the Service's Ready (its Route too, which needs the cluster's ingress layer) when the load goes to the Service's URL.
import type { KubernetesObject } from "@kubernetes/client-node";
import { type KubernetesSpec, kubernetesReplicas } from "@opsbench/core";
import { ProviderError } from "../provider";
import { type Condition, conditionOf, describeCondition } from "./conditions";
import { type KubeClient, kubeCall } from "./kube-client";
import { APP_NAME, DB_NAME, namespaceOf, runLabels } from "./objects";

export const KNATIVE_SERVING = "serving.knative.dev/v1";
export const KNATIVE_AUTOSCALING = "autoscaling.internal.knative.dev/v1alpha1";

export interface KnativeService extends KubernetesObject {
  spec: Record<string, unknown>;
  status?: {
    conditions?: Condition[];
    latestCreatedRevisionName?: string;
    latestReadyRevisionName?: string;
    url?: string;
    observedGeneration?: number;
  };
}
interface PodAutoscaler extends KubernetesObject {
  status?: { conditions?: Condition[]; desiredScale?: number; actualScale?: number };
}

/** The Knative Service: the image with its env, the Revision's concurrency and timeout, min/max scale from the replicas. */
export function knativeServiceObject(spec: KubernetesSpec & { image: string }, runId: string): KnativeService {
  const { min, max } = kubernetesReplicas(spec);
  const k = spec.knative ?? {};
  const r = spec.resources ?? {};
  const requests = { ...(r.cpuRequest ? { cpu: r.cpuRequest } : {}), ...(r.memoryRequest ? { memory: r.memoryRequest } : {}) };
  const limits = { ...(r.cpuLimit ? { cpu: r.cpuLimit } : {}), ...(r.memoryLimit ? { memory: r.memoryLimit } : {}) };
  const annotations: Record<string, string> = {
    // Knative's autoscaler (the KPA) reconciles only PodAutoscalers of its class; the defaulting webhook would set it.
    "autoscaling.knative.dev/class": "kpa.autoscaling.knative.dev",
    "autoscaling.knative.dev/min-scale": String(min),
    "autoscaling.knative.dev/max-scale": String(max),
    "autoscaling.knative.dev/initial-scale": String(min),
    ...(k.targetConcurrency !== undefined ? { "autoscaling.knative.dev/target": String(k.targetConcurrency) } : {}),
    ...(k.targetBurstCapacity !== undefined ? { "autoscaling.knative.dev/target-burst-capacity": String(k.targetBurstCapacity) } : {}),
  };
  return {
    apiVersion: KNATIVE_SERVING,
    kind: "Service",
    metadata: { name: APP_NAME, namespace: namespaceOf(runId), labels: runLabels(runId) },
    spec: {
      template: {
        metadata: { labels: runLabels(runId), annotations },
        // Every field Knative's defaulting webhook would set is written here, so no webhook is needed.
        spec: {
          containerConcurrency: k.containerConcurrency ?? 0,
          timeoutSeconds: k.timeoutSeconds ?? 300,
          containers: [
            {
              name: APP_NAME,
              image: spec.image,
              // Knative gives the container PORT itself (a reserved name): from this port.
              ports: [{ containerPort: spec.port }],
              env: [
                ...Object.entries(spec.env).map(([name, value]) => ({ name, value })),
                ...(spec.database ? [{ name: spec.database.urlEnv, valueFrom: { secretKeyRef: { name: DB_NAME, key: "url" } } }] : []),
              ],
              resources: { ...(Object.keys(requests).length ? { requests } : {}), ...(Object.keys(limits).length ? { limits } : {}) },
              readinessProbe: { tcpSocket: { port: 0 }, successThreshold: 1 },
            },
          ],
        },
      },
    },
  };
}

export async function createKnativeService(client: KubeClient, body: KnativeService): Promise<void> {
  await kubeCall(client, `creating Knative Service ${body.metadata?.name}`, () => client.objects.create(body));
}

export async function readKnativeService(client: KubeClient, namespace: string, name = APP_NAME): Promise<KnativeService> {
  return kubeCall(client, `reading Knative Service ${name}`, () =>
    client.objects.read<KnativeService>({ apiVersion: KNATIVE_SERVING, kind: "Service", metadata: { name, namespace } }),
  );
}

export async function readPodAutoscaler(client: KubeClient, namespace: string, name: string): Promise<PodAutoscaler> {
  return client.objects.read<PodAutoscaler>({ apiVersion: KNATIVE_AUTOSCALING, kind: "PodAutoscaler", metadata: { name, namespace } });
}

/**
 * Whether the Knative Service is ready for the load: null when it is (with its Revision), else what it waits for.
 * `withRoute`: the Service's Ready (Configuration and Route), else its ConfigurationsReady. A condition that is
 * False (e.g. RevisionFailed, an image that cannot be pulled) is thrown at once: waiting would not change it.
 */
export function knativeNotReady(svc: KnativeService, withRoute: boolean): { waiting: string } | { revision: string; url: string | null } {
  const generation = svc.metadata?.generation;
  if (generation !== undefined && svc.status?.observedGeneration !== generation)
    return { waiting: "Knative's controller has not seen the Service yet" };
  const config = conditionOf(svc, "ConfigurationsReady");
  const ready = conditionOf(svc, "Ready");
  const routes = conditionOf(svc, "RoutesReady");
  if (config?.status === "False") throw new ProviderError(`the Knative Service's Configuration failed: ${describeCondition(config)}`);
  const revision = svc.status?.latestReadyRevisionName;
  if (config?.status !== "True" || !revision)
    return {
      waiting: `${describeCondition(config, "ConfigurationsReady")}; latest created revision ${svc.status?.latestCreatedRevisionName ?? "none"}`,
    };
  if (withRoute) {
    if (routes?.status === "False") throw new ProviderError(`the Knative Service's Route failed: ${describeCondition(routes)}`);
    if (ready?.status !== "True" || !svc.status?.url)
      return {
        waiting: `${describeCondition(ready, "Ready")}, ${describeCondition(routes, "RoutesReady")} (the Route needs the cluster's Knative ingress layer; without one give an endpoint or portForward)`,
      };
  }
  return { revision, url: svc.status?.url ?? null };
}

/** The Deployment Knative makes for a Revision. */
export const revisionDeployment = (revision: string) => `${revision}-deployment`;

/** The Revision's scale as Knative's autoscaler sees it: desired and actual, null when its PodAutoscaler has none yet. */
export async function podAutoscalerScale(
  client: KubeClient,
  namespace: string,
  revision: string,
): Promise<{ desired: number | null; actual: number | null; ready: string | null } | null> {
  const pa = await readPodAutoscaler(client, namespace, revision).catch(() => null);
  if (!pa) return null;
  const n = (v: number | undefined) => (v !== undefined && v >= 0 ? v : null);
  return { desired: n(pa.status?.desiredScale), actual: n(pa.status?.actualScale), ready: conditionOf(pa, "Ready")?.status ?? null };
}
