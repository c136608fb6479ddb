// The kubernetes kind's boxes: an image (opsbench makes Deployment, Service and maybe an HPA, a Knative Service or
// an OpenFaaS Function) or the user's own manifests; a fixed size or min/max with an HPA (with a flavour: its
// autoscaler's min/max); the Service's load-balancer address (Knative: its URL; OpenFaaS: the gateway's route of the
// function), an ingress URL or port-forwards.
import { type KubernetesFlavour, type KubernetesSpec, kubernetesReplicas, kubernetesSpec } from "@opsbench/core";
import { type FieldType, fieldsUnder, type SpecValues, specFromValues, valuesFromSpec } from "@/features/targets/target-form/spec-values";

export const KUBERNETES_FIELDS = {
  credential: "text",
  image: "text",
  flavour: "text",
  "knative.containerConcurrency": "int",
  "knative.targetConcurrency": "int",
  "knative.targetBurstCapacity": "int",
  "knative.timeoutSeconds": "int",
  "openfaas.gateway": "text",
  "openfaas.scaleToZero": "bool",
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
  nodes: "int",
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

/** The flavour box: empty is a Deployment (the schema's default, left out of the spec). */
export const flavourOfValues = (v: SpecValues): KubernetesFlavour =>
  v.flavour === "knative-service" || v.flavour === "openfaas-function" ? v.flavour : "deployment";

/** What the describe lines of every flavour share. */
interface DescribeParts {
  min: number;
  max: number;
  /** Requests and limits per pod. */
  perPod: string;
  /** Where the load goes. */
  where: string;
  ready: string;
}

/** A flavour's boxes and words (its rules are core's KUBERNETES_FLAVOUR_RULES; its deploy the provider's table). */
interface KubernetesFlavourForm {
  /** Its name in the flavour box. */
  label: string;
  /** Its own boxes besides the image, port, size and resources. */
  own: (v: SpecValues) => string[];
  /** Whether it may take the user's manifests and an HPA on CPU (a framework's autoscaler scales the others). */
  deployment: boolean;
  /** Where the load goes when the spec gives no URL, port-forward or gateway. */
  defaultWhere: string;
  /** Its words in the form's boxes: the flavour, ready-within, port, the autoscaled size and the "load-balancer" mode. */
  hints: { flavour: string; readyWithin: string; port: string; autoscaled: string; loadBalancer: string };
  /** The box the "load-balancer" mode asks for (the OpenFaaS gateway), if any; `own` lists its path then. */
  loadBalancerBox?: { label: string; path: string; placeholder: string; hint: string };
  describe: (s: KubernetesSpec, parts: DescribeParts) => string[];
}

const scale = ({ min, max }: DescribeParts) => (min === max ? `${min}` : `${min}..${max}`);

const KUBERNETES_FLAVOUR_FORMS = {
  deployment: {
    label: "Deployment",
    own: () => ["placement", "nodes"],
    deployment: true,
    defaultWhere: "load to the Service's load-balancer address",
    hints: {
      flavour: "opsbench makes a Deployment, a Service and an HPA",
      readyWithin: "for the Deployment (and the HPA in reset)",
      port: "the Service forwards port 80 to it",
      autoscaled: "min/max with an HPA on CPU",
      loadBalancer: "the Service's load-balancer address",
    },
    describe: (s, parts) => {
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
      const { min, max } = parts;
      return [
        `namespace opsbench-<run>: ${objects.join(", ")}`,
        `${s.image} on port ${s.port}, ${min === max ? `${min} replica${min === 1 ? "" : "s"}` : `${min}..${max} replicas`}`,
        parts.perPod,
        s.nodes !== undefined
          ? `pods only on ${s.nodes} node${s.nodes === 1 ? "" : "s"} held for the run`
          : placement.length
            ? placement.join(", ")
            : "pods placed by the scheduler",
        parts.where,
        parts.ready,
      ];
    },
  },
  "knative-service": {
    label: "Knative Service",
    own: () => ["flavour", "knative"],
    deployment: false,
    defaultWhere: "load to the Knative Service's URL (through the cluster's ingress layer)",
    hints: {
      flavour: "a serving.knative.dev Service: Knative makes the rest (Knative Serving must be on the cluster)",
      readyWithin: "for the Knative Service and its Revision",
      port: "Knative routes to it",
      autoscaled: "min/max scale, Knative's autoscaler between them",
      loadBalancer: "the Knative Service's URL (the cluster's ingress)",
    },
    describe: (s, parts) => {
      const k = s.knative ?? {};
      return [
        "namespace opsbench-<run>: a Knative Service; Knative makes its Revision, Deployment and autoscaling",
        `${s.image} on port ${s.port}, scale ${scale(parts)} (min-scale..max-scale)`,
        [
          `container concurrency ${k.containerConcurrency ? k.containerConcurrency : "no limit"}`,
          `target ${k.targetConcurrency ?? "the cluster's default"} concurrent per pod`,
          `burst capacity ${k.targetBurstCapacity ?? "the cluster's default"}`,
          `timeout ${k.timeoutSeconds ?? 300} s`,
        ].join(", "),
        parts.perPod,
        parts.where,
        parts.ready,
      ];
    },
  },
  "openfaas-function": {
    label: "OpenFaaS Function",
    // Its load goes to the gateway: the "load-balancer" mode's place.
    own: (v) => [
      "flavour",
      "openfaas.scaleToZero",
      ...((v["@endpoint"] ?? "load-balancer") === "load-balancer" ? ["openfaas.gateway"] : []),
    ],
    deployment: false,
    defaultWhere: "load to the Service's load-balancer address",
    hints: {
      flavour: "an openfaas.com Function: OpenFaaS's operator makes the rest (OpenFaaS with its operator must be on the cluster)",
      readyWithin: "for the Function to be Ready and Healthy",
      port: "given to the function as PORT",
      autoscaled: "min/max scale, OpenFaaS's autoscaler between them",
      loadBalancer: "the OpenFaaS gateway's route of the function",
    },
    loadBalancerBox: {
      label: "Gateway URL",
      path: "openfaas.gateway",
      placeholder: "http://gateway.example.com:8080",
      hint: "the load goes to <gateway>/function/app.opsbench-<run>",
    },
    describe: (s, parts) => [
      "namespace opsbench-<run> (annotated for OpenFaaS): an OpenFaaS Function; its operator makes the Deployment and Service",
      `${s.image} on port ${s.port}, scale ${scale(parts)} (com.openfaas.scale.min..max)${s.openfaas?.scaleToZero ? ", may scale to zero" : ""}`,
      parts.perPod,
      parts.where,
      parts.ready,
    ],
  },
} satisfies Record<KubernetesFlavour, KubernetesFlavourForm>;

/** The flavours the flavour box offers besides the Deployment (its empty choice), with their labels. */
export const FRAMEWORK_FLAVOURS = (Object.keys(KUBERNETES_FLAVOUR_FORMS) as KubernetesFlavour[]).filter((f) => f !== "deployment");
export const flavourLabel = (f: KubernetesFlavour) => KUBERNETES_FLAVOUR_FORMS[f].label;

/** The form's row of the flavour the boxes name. */
export const kubernetesFlavourForm = (v: SpecValues): KubernetesFlavourForm => KUBERNETES_FLAVOUR_FORMS[flavourOfValues(v)];

export function buildKubernetesSpec(v: SpecValues): Record<string, unknown> {
  const F = KUBERNETES_FIELDS;
  const flavour = KUBERNETES_FLAVOUR_FORMS[flavourOfValues(v)];
  const size = v["@size"] === "fixed" ? ["replicas"] : ["minReplicas", "maxReplicas", ...(flavour.deployment ? ["targetCpuPercent"] : [])];
  const fields =
    v["@source"] === "manifests" && flavour.deployment
      ? fieldsUnder(F, "credential", "manifests", "deployment", "readyTimeoutMs")
      : fieldsUnder(F, "credential", "image", ...flavour.own(v), "port", ...size, "resources", "readyTimeoutMs");
  if (v["@endpoint"] === "url") Object.assign(fields, fieldsUnder(F, "endpoint"));
  if (v["@endpoint"] === "port-forward") return { ...specFromValues(v, fields), portForward: true };
  return specFromValues(v, fields);
}

/** The boxes of a stored spec (editing it), with the modes it was made in. */
export function kubernetesValues(spec: unknown): SpecValues {
  const s = (spec ?? {}) as Partial<KubernetesSpec>;
  const { flavour, ...values } = valuesFromSpec(spec, KUBERNETES_FIELDS);
  return {
    ...values,
    ...(flavour === "knative-service" || flavour === "openfaas-function" ? { flavour } : {}),
    "@source": s.manifests !== undefined ? "manifests" : "image",
    "@size": s.replicas !== undefined ? "fixed" : "hpa",
    "@endpoint": s.portForward ? "port-forward" : s.endpoint ? "url" : "load-balancer",
  };
}

/** "cpu 500m, memory 256Mi" of the quantities given. */
const quantities = (cpu?: string, memory?: string) => [cpu && `cpu ${cpu}`, memory && `memory ${memory}`].filter(Boolean).join(", ");

export function describeKubernetes(spec: unknown): string[] | null {
  const r = kubernetesSpec.safeParse(spec);
  if (!r.success) return null;
  const s = r.data;
  const flavour = KUBERNETES_FLAVOUR_FORMS[s.flavour ?? "deployment"];
  const where = s.endpoint
    ? `load to ${s.endpoint}`
    : s.portForward
      ? "load through port-forwards of the API server, one connection at a time to each ready pod (flagged)"
      : s.openfaas?.gateway
        ? `load to ${s.openfaas.gateway.replace(/\/+$/, "")}/function/app.opsbench-<run> (the gateway's route)`
        : flavour.defaultWhere;
  const ready = `ready within ${s.readyTimeoutMs / 1000} s; teardown deletes the namespace`;
  // A chart has no image of its own to name (a spec without one read "undefined on port 8080").
  if (s.helm !== undefined) {
    return [
      `namespace opsbench-<run>: your Helm chart rendered as release ${s.helm.release ?? "app"}${s.helm.values ? ` with ${Object.keys(s.helm.values).length} value(s)` : ""}, applied server-side`,
      `observes Deployment ${s.deployment ?? "(the first one)"}`,
      where,
      ready,
    ];
  }
  if (s.manifests !== undefined) {
    const docs = s.manifests.split(/^---\s*$/m).filter((d) => d.trim()).length;
    return [
      `namespace opsbench-<run>: your manifests (${docs} document${docs === 1 ? "" : "s"}), applied server-side`,
      `observes Deployment ${s.deployment ?? "(the first one)"}`,
      where,
      ready,
    ];
  }
  const res = s.resources ?? {};
  const perPod =
    [
      quantities(res.cpuRequest, res.memoryRequest) && `requests ${quantities(res.cpuRequest, res.memoryRequest)}`,
      quantities(res.cpuLimit, res.memoryLimit) && `limits ${quantities(res.cpuLimit, res.memoryLimit)}`,
    ]
      .filter(Boolean)
      .join("; ") || "no requests or limits";
  return flavour.describe(s, { ...kubernetesReplicas(s), perPod, where, ready });
}
