// The kubernetes kind's boxes: an image (opsbench makes Deployment, Service and maybe an HPA) or the user's
// own manifests; a fixed size or min/max with an HPA; the Service's load-balancer address, an ingress URL or
// port-forwards.
import { kubernetesReplicas, kubernetesSpec } from "@opsbench/core";
import { type FieldType, fieldsUnder, type SpecValues, specFromValues } from "@/features/targets/target-form/spec-values";

export const KUBERNETES_FIELDS = {
  credential: "text",
  image: "text",
  port: "int",
  replicas: "int",
  minReplicas: "int",
  maxReplicas: "int",
  targetCpuPercent: "int",
  "resources.cpuRequest": "text",
  "resources.cpuLimit": "text",
  "resources.memoryRequest": "text",
  "resources.memoryLimit": "text",
  "placement.onePodPerNode": "bool",
  "placement.spreadEvenly": "bool",
  "placement.nodeSelector": "map",
  manifests: "text",
  deployment: "text",
  endpoint: "text",
  readyTimeoutMs: "int",
} satisfies Record<string, FieldType>;

export type KubernetesSource = "image" | "manifests";
export type KubernetesSize = "hpa" | "fixed";
export type KubernetesEndpoint = "load-balancer" | "url" | "port-forward";

/** The form's first values: an HPA at 50% of a 500m request between 1 and the default max (the GKE-50 setup). */
export const KUBERNETES_START: SpecValues = {
  "@source": "image",
  "@size": "hpa",
  "@endpoint": "load-balancer",
  minReplicas: "1",
  targetCpuPercent: "50",
  "resources.cpuRequest": "500m",
};

export function buildKubernetesSpec(v: SpecValues): Record<string, unknown> {
  const F = KUBERNETES_FIELDS;
  const size = v["@size"] === "fixed" ? ["replicas"] : ["minReplicas", "maxReplicas", "targetCpuPercent"];
  const fields =
    v["@source"] === "manifests"
      ? fieldsUnder(F, "credential", "manifests", "deployment", "readyTimeoutMs")
      : fieldsUnder(F, "credential", "image", "port", ...size, "resources", "placement", "readyTimeoutMs");
  if (v["@endpoint"] === "url") Object.assign(fields, fieldsUnder(F, "endpoint"));
  if (v["@endpoint"] === "port-forward") return { ...specFromValues(v, fields), portForward: true };
  return specFromValues(v, fields);
}

/** "cpu 500m, memory 256Mi" of the quantities given. */
const quantities = (cpu?: string, memory?: string) => [cpu && `cpu ${cpu}`, memory && `memory ${memory}`].filter(Boolean).join(", ");

export function describeKubernetes(spec: unknown): string[] | null {
  const r = kubernetesSpec.safeParse(spec);
  if (!r.success) return null;
  const s = r.data;
  const where = s.endpoint
    ? `load to ${s.endpoint}`
    : s.portForward
      ? "load through port-forwards of the API server, one connection at a time to each ready pod (flagged)"
      : "load to the Service's load-balancer address";
  const ready = `ready within ${s.readyTimeoutMs / 1000} s; teardown deletes the namespace`;
  if (s.manifests !== undefined) {
    const docs = s.manifests.split(/^---\s*$/m).filter((d) => d.trim()).length;
    return [
      `namespace opsbench-<run>: your manifests (${docs} document${docs === 1 ? "" : "s"}), applied server-side`,
      `observes Deployment ${s.deployment ?? "(the first one)"}`,
      where,
      ready,
    ];
  }
  const { min, max } = kubernetesReplicas(s);
  const objects = ["Deployment", `Service (${s.endpoint || s.portForward ? "ClusterIP" : "LoadBalancer"})`];
  if (s.targetCpuPercent !== undefined) objects.push(`HPA at ${s.targetCpuPercent}% CPU`);
  const p = s.placement ?? {};
  const placement = [
    p.onePodPerNode ? "one pod per node" : "",
    p.spreadEvenly ? "spread evenly over nodes" : "",
    p.nodeSelector && Object.keys(p.nodeSelector).length
      ? `only on nodes with ${Object.entries(p.nodeSelector)
          .map(([k, val]) => `${k}=${val}`)
          .join(", ")}`
      : "",
  ].filter(Boolean);
  const res = s.resources ?? {};
  return [
    `namespace opsbench-<run>: ${objects.join(", ")}`,
    `${s.image} on port ${s.port}, ${min === max ? `${min} replica${min === 1 ? "" : "s"}` : `${min}..${max} replicas`}`,
    [
      quantities(res.cpuRequest, res.memoryRequest) && `requests ${quantities(res.cpuRequest, res.memoryRequest)}`,
      quantities(res.cpuLimit, res.memoryLimit) && `limits ${quantities(res.cpuLimit, res.memoryLimit)}`,
    ]
      .filter(Boolean)
      .join("; ") || "no requests or limits",
    placement.length ? placement.join(", ") : "pods placed by the scheduler",
    where,
    ready,
  ];
}
