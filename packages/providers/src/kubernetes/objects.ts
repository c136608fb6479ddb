// The objects opsbench makes from a kubernetes spec: the run's namespace, a Deployment, a Service and an HPA.
// Every one carries the run's label, so teardown and the reaper find them by label too.
import type { V1Deployment, V1Namespace, V1Service, V2HorizontalPodAutoscaler } from "@kubernetes/client-node";
import { type KubernetesSpec, kubernetesReplicas } from "@opsbench/core";

export const RUN_LABEL = "opsbench-run";
export const MANAGED_BY = { "app.kubernetes.io/managed-by": "opsbench" };
export const APP_NAME = "app";

/** The run's namespace: opsbench-<run id>. */
export const namespaceOf = (runId: string) => `opsbench-${runId}`;
export const runLabels = (runId: string) => ({ [RUN_LABEL]: runId, ...MANAGED_BY });

export function namespaceObject(runId: string): V1Namespace {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name: namespaceOf(runId), labels: runLabels(runId) } };
}

export function deploymentObject(spec: KubernetesSpec & { image: string }, runId: string): V1Deployment {
  const { min } = kubernetesReplicas(spec);
  const selector = { app: APP_NAME };
  const r = spec.resources ?? {};
  const requests = { ...(r.cpuRequest ? { cpu: r.cpuRequest } : {}), ...(r.memoryRequest ? { memory: r.memoryRequest } : {}) };
  const limits = { ...(r.cpuLimit ? { cpu: r.cpuLimit } : {}), ...(r.memoryLimit ? { memory: r.memoryLimit } : {}) };
  const p = spec.placement ?? {};
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: APP_NAME, namespace: namespaceOf(runId), labels: runLabels(runId) },
    spec: {
      replicas: min,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...selector, ...runLabels(runId) } },
        spec: {
          containers: [
            {
              name: APP_NAME,
              image: spec.image,
              ports: [{ containerPort: spec.port }],
              env: [{ name: "PORT", value: String(spec.port) }, ...Object.entries(spec.env).map(([name, value]) => ({ name, value }))],
              resources: { ...(Object.keys(requests).length ? { requests } : {}), ...(Object.keys(limits).length ? { limits } : {}) },
              readinessProbe: { tcpSocket: { port: spec.port }, periodSeconds: 2 },
            },
          ],
          ...(p.nodeSelector ? { nodeSelector: p.nodeSelector } : {}),
          ...(p.onePodPerNode
            ? {
                affinity: {
                  podAntiAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: [
                      { labelSelector: { matchLabels: selector }, topologyKey: "kubernetes.io/hostname" },
                    ],
                  },
                },
              }
            : {}),
          ...(p.spreadEvenly
            ? {
                topologySpreadConstraints: [
                  {
                    maxSkew: 1,
                    topologyKey: "kubernetes.io/hostname",
                    whenUnsatisfiable: "DoNotSchedule",
                    labelSelector: { matchLabels: selector },
                  },
                ],
              }
            : {}),
        },
      },
    },
  };
}

export function serviceObject(spec: KubernetesSpec, runId: string): V1Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: APP_NAME, namespace: namespaceOf(runId), labels: runLabels(runId) },
    // A load balancer unless the load goes to an address the user gives (an ingress, a stand-in) or by port-forward.
    spec: {
      type: spec.endpoint || spec.portForward ? "ClusterIP" : "LoadBalancer",
      selector: { app: APP_NAME },
      ports: [{ port: 80, targetPort: spec.port }],
    },
  };
}

export function hpaObject(spec: KubernetesSpec, runId: string): V2HorizontalPodAutoscaler | null {
  if (spec.targetCpuPercent === undefined) return null;
  const { min, max } = kubernetesReplicas(spec);
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: APP_NAME, namespace: namespaceOf(runId), labels: runLabels(runId) },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: APP_NAME },
      minReplicas: min,
      maxReplicas: max,
      metrics: [
        { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: spec.targetCpuPercent } } },
      ],
    },
  };
}
