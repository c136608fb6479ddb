// The objects opsbench makes from a kubernetes spec: the run's namespace, a Deployment, a Service and an HPA.
// Every one carries the run's label, so teardown and the reaper find them by label too.
import type { V1Deployment, V1EnvVar, V1Namespace, V1Secret, V1Service, V2HorizontalPodAutoscaler } from "@kubernetes/client-node";
import { type KubernetesSpec, kubernetesReplicas } from "@opsbench/core";
import { type PodSecurityLevel, podSecurityLabels } from "./pod-security";

export const RUN_LABEL = "opsbench-run";
export const MANAGED_BY = { "app.kubernetes.io/managed-by": "opsbench" };
export const APP_NAME = "app";
/** The spec's database: its Secret, Deployment and Service are all named this. */
export const DB_NAME = "db";

/** The run's namespace: opsbench-<run id>. */
export const namespaceOf = (runId: string) => `opsbench-${runId}`;
export const runLabels = (runId: string) => ({ [RUN_LABEL]: runId, ...MANAGED_BY });

/** The run's namespace, its pods held by the cluster's own admission to `podSecurity` (pod-security.ts). */
export function namespaceObject(
  runId: string,
  annotations: Record<string, string> = {},
  podSecurity: PodSecurityLevel = "baseline",
): V1Namespace {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name: namespaceOf(runId),
      labels: { ...runLabels(runId), ...podSecurityLabels(podSecurity) },
      ...(Object.keys(annotations).length ? { annotations } : {}),
    },
  };
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
              env: [
                { name: "PORT", value: String(spec.port) },
                ...Object.entries(spec.env).map(([name, value]) => ({ name, value })),
                ...databaseEnv(spec),
              ],
              resources: { ...(Object.keys(requests).length ? { requests } : {}), ...(Object.keys(limits).length ? { limits } : {}) },
              readinessProbe: { tcpSocket: { port: spec.port }, periodSeconds: 2 },
            },
          ],
          // The nodes the run holds (nodes.ts) carry the run's label; else the user's own selector, if any.
          ...(spec.nodes !== undefined ? { nodeSelector: { [RUN_LABEL]: runId } } : p.nodeSelector ? { nodeSelector: p.nodeSelector } : {}),
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

/** The app's variable that carries the database's URL, read from the database's Secret (never written into the Deployment). */
function databaseEnv(spec: KubernetesSpec): V1EnvVar[] {
  if (!spec.database) return [];
  return [{ name: spec.database.urlEnv, valueFrom: { secretKeyRef: { name: DB_NAME, key: "url" } } }];
}

/**
 * The spec's throwaway database: a Secret (password drawn per run, and the URL the app is given), a Deployment of
 * one Postgres with its data on an emptyDir (gone with the pod: each run starts empty), a ClusterIP Service `db`.
 */
export function databaseObjects(
  spec: KubernetesSpec,
  runId: string,
  password: string,
): { secret: V1Secret; deployment: V1Deployment; service: V1Service } | null {
  const db = spec.database;
  if (!db) return null;
  const namespace = namespaceOf(runId);
  const metadata = { name: DB_NAME, namespace, labels: runLabels(runId) };
  const selector = { app: DB_NAME };
  const user = "app";
  const secretEnv = (name: string, key: string): V1EnvVar => ({ name, valueFrom: { secretKeyRef: { name: DB_NAME, key } } });
  return {
    secret: {
      apiVersion: "v1",
      kind: "Secret",
      metadata,
      type: "Opaque",
      stringData: { password, url: `postgresql://${user}:${password}@${DB_NAME}:5432/app` },
    },
    deployment: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata,
      spec: {
        replicas: 1,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels: { ...selector, ...runLabels(runId) } },
          spec: {
            containers: [
              {
                name: DB_NAME,
                image: db.image,
                ports: [{ containerPort: 5432 }],
                env: [
                  { name: "POSTGRES_USER", value: user },
                  { name: "POSTGRES_DB", value: "app" },
                  secretEnv("POSTGRES_PASSWORD", "password"),
                  { name: "PGDATA", value: "/var/lib/postgresql/data/pgdata" },
                ],
                readinessProbe: { exec: { command: ["pg_isready", "-U", user, "-d", "app"] }, periodSeconds: 2 },
                volumeMounts: [{ name: "data", mountPath: "/var/lib/postgresql/data" }],
              },
            ],
            volumes: [{ name: "data", emptyDir: {} }],
          },
        },
      },
    },
    service: {
      apiVersion: "v1",
      kind: "Service",
      metadata,
      spec: { type: "ClusterIP", selector, ports: [{ port: 5432, targetPort: 5432 }] },
    },
  };
}
