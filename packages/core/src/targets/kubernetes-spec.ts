// The `kubernetes` target kind (docs/kubernetes.md): a small spec from which opsbench makes a namespace
// opsbench-<run>, a Deployment, a Service and an HPA, or the user's own manifests applied into that namespace.
import { z } from "zod";
import { cloudRegion, platformMetricsSettings } from "./cloud-target-specs";
import { costModelDocument } from "../cost/run-cost";
import { credentialName } from "./credentials";
import { appDatabaseEnvIssue, appDatabaseSpec } from "./target-database";
import { targetEnv } from "./target-env";

/** A Kubernetes resource quantity: CPU as 500m or 1, memory as 256Mi or 1Gi. */
export const kubeQuantity = z.string().regex(/^\d+(\.\d+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/, "a Kubernetes quantity such as 500m, 1, 256Mi");
const replicaCount = z.number().int().min(1).max(1000);
const dnsLabel = z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, "a DNS label (lower-case letters, digits, '-')");

/** What opsbench makes from a kubernetes target's image (docs/kubernetes.md). */
export const KUBERNETES_FLAVOURS = ["deployment", "knative-service", "openfaas-function"] as const;

/** A packaged chart of at most 1 MiB, as base64 (4 characters per 3 bytes, padded). */
export const HELM_CHART_MAX_BASE64 = Math.ceil((1024 * 1024) / 3) * 4;

const kubernetesFields = z
  .object({
    /** The workspace credential (a kubeconfig) to reach the cluster with (docs/credentials.md). */
    credential: credentialName,
    /** The container image to run. Give this, or `manifests`. */
    image: z.string().min(1).max(512).optional(),
    /**
     * What opsbench makes from the image: a Deployment with a Service (and an HPA), the default; or a Knative Service
     * (serving.knative.dev/v1) whose controller makes the Revision, its Deployment and its autoscaling; or an OpenFaaS
     * Function (openfaas.com/v1) whose operator makes the function's Deployment (docs/kubernetes.md).
     */
    flavour: z.enum(KUBERNETES_FLAVOURS).optional(),
    /** With flavour knative-service: the Revision's concurrency and timeout, and the Knative autoscaler's settings. */
    knative: z
      .object({
        /** Requests one pod takes at a time (the Revision's containerConcurrency; 0 = no limit, Knative's default). */
        containerConcurrency: z.number().int().min(0).max(1000).optional(),
        /** Concurrent requests per pod the autoscaler aims at (autoscaling.knative.dev/target). */
        targetConcurrency: z.number().int().min(1).max(1000).optional(),
        /** autoscaling.knative.dev/target-burst-capacity: 0 keeps the activator out of the path while pods run, -1 always in it. */
        targetBurstCapacity: z.number().int().min(-1).max(100_000).optional(),
        /** The Revision's request timeout (Knative's default: 300). */
        timeoutSeconds: z.number().int().min(1).max(3600).optional(),
      })
      .strict()
      .optional(),
    /** With flavour openfaas-function: the OpenFaaS gateway as the load generator reaches it, and scale to zero. */
    openfaas: z
      .object({
        /** The gateway's URL: the load goes to <gateway>/function/app.<run's namespace>. */
        gateway: z.url().optional(),
        /** Whether OpenFaaS may scale the function to zero when idle (com.openfaas.scale.zero; default no). */
        scaleToZero: z.boolean().optional(),
      })
      .strict()
      .optional(),
    /** The container's port; the Service forwards to it. */
    port: z.number().int().min(1).max(65535).default(8080),
    replicas: replicaCount.optional(),
    minReplicas: replicaCount.optional(),
    maxReplicas: replicaCount.optional(),
    /** An HPA on CPU between min and max, at this average utilisation in % of cpuRequest (GKE-50: 50). */
    targetCpuPercent: z.number().int().min(1).max(100).optional(),
    /** Per pod (the HPA measures utilisation against cpuRequest, as Kubernetes does). */
    resources: z
      .object({
        cpuRequest: kubeQuantity.optional(),
        cpuLimit: kubeQuantity.optional(),
        memoryRequest: kubeQuantity.optional(),
        memoryLimit: kubeQuantity.optional(),
      })
      .strict()
      .optional(),
    /**
     * The nodes the run's pods may use: opsbench holds this many free nodes of the cluster for the run (a label on each,
     * removed at teardown) and places the pods only there; the cluster is not resized. A study's nodes factor sets it.
     * Changing nodes is a cluster-scoped change: only with a credential whose owner allows it (docs/credentials.md).
     */
    nodes: z.number().int().min(1).max(100).optional(),
    /** Pod density: at most one pod per node (required anti-affinity), pods spread evenly over nodes, or only on some nodes. */
    placement: z
      .object({
        onePodPerNode: z.boolean().optional(),
        spreadEvenly: z.boolean().optional(),
        nodeSelector: z.record(z.string().min(1).max(253), z.string().max(63)).optional(),
      })
      .strict()
      .optional(),
    /** Given to the container: safe names only, values never shown (target-env.ts). */
    env: targetEnv.default({}),
    /**
     * A throwaway database deployed into the run's namespace beside the app (a Secret with a password drawn per run,
     * a Deployment with the data on an emptyDir, a Service `db`), deleted with the namespace. Its URL goes to the app
     * in the variable `urlEnv` (the IoT app's IOT_DATABASE_URL); the app's Deployment waits for it to be ready.
     */
    database: appDatabaseSpec
      .extend({ image: z.string().min(1).max(512).default("postgres:17-alpine") })
      .strict()
      .optional(),
    /** Instead of image: the user's own manifests (YAML documents), applied into the run's namespace. */
    manifests: z.string().min(1).max(1_000_000).optional(),
    /**
     * Instead of image or manifests: a Helm chart (a packaged chart .tgz, base64), rendered by the worker with `helm template`
     * into the run's namespace and then applied as manifests are (docs/kubernetes.md, "Helm charts").
     */
    helm: z
      .object({
        /** The packaged chart (`helm package`'s .tgz), base64: at most 1 MiB packed. */
        chart: z
          .string()
          .min(1, "the packaged chart (.tgz), base64")
          .max(HELM_CHART_MAX_BASE64, "the packaged chart is larger than 1 MiB (base64: at most 1,398,104 characters)")
          .regex(/^[A-Za-z0-9+/]+={0,2}$/, "the packaged chart (.tgz) as base64 (A-Z, a-z, 0-9, '+', '/', '=' padding; no line breaks)"),
        /** The chart's values (what `--values` would be given), as JSON. */
        values: z.record(z.string(), z.unknown()).optional(),
        /** The release's name (default: app). */
        release: dnsLabel.optional(),
      })
      .strict()
      .optional(),
    /** With manifests or helm: the Deployment whose replicas are observed (default: the first one). */
    deployment: dnsLabel.optional(),
    /**
     * Where the load goes: an ingress URL of the user's, or a local stand-in of the image (the tests).
     * Default: the Service's load-balancer address.
     */
    endpoint: z.url().optional(),
    /**
     * For clusters without a load-balancer address or an ingress: the load reaches the pods through a
     * port-forward of the API server, each new connection to the next ready pod (flagged on the run).
     */
    portForward: z.boolean().optional(),
    /** How long the Deployment may take to be ready (and, in reset, the HPA to settle). */
    readyTimeoutMs: z.number().int().min(1000).max(1_800_000).default(300_000),
    /** What this deployment would cost for real: a cost model, or a price catalog reference (docs/cost.md). */
    costModel: costModelDocument.optional(),
  })
  .strict();
type KubernetesFields = z.output<typeof kubernetesFields>;
export type KubernetesFlavour = (typeof KUBERNETES_FLAVOURS)[number];

/** One refusal of a spec: where and why. */
type Refusal = { path: PropertyKey[]; message: string };

/** What a flavour makes from the image and what it refuses beside it (the providers' own table: kubernetes/flavours.ts). */
interface FlavourRules {
  /** The spec key of its own settings, refused with any other flavour. */
  settings: "knative" | "openfaas" | null;
  refuses: (s: KubernetesFields) => Refusal[];
}

const refusal = (path: PropertyKey[] | string, message: string): Refusal => ({ path: typeof path === "string" ? [path] : path, message });

export const KUBERNETES_FLAVOUR_RULES = {
  deployment: { settings: null, refuses: () => [] },
  "knative-service": {
    settings: "knative",
    refuses: (s) => [
      ...(s.manifests !== undefined ? [refusal("flavour", "a Knative Service is made from an image: give image, not manifests")] : []),
      ...(s.targetCpuPercent !== undefined
        ? [
            refusal(
              "targetCpuPercent",
              "a Knative Service scales on concurrency (knative.targetConcurrency), not with an HPA on CPU: leave targetCpuPercent out",
            ),
          ]
        : []),
      ...(s.placement || s.nodes !== undefined
        ? [
            refusal(
              s.placement ? "placement" : "nodes",
              "pod placement is behind Knative's feature flags (kubernetes.podspec-affinity): not with a Knative Service",
            ),
          ]
        : []),
    ],
  },
  "openfaas-function": {
    settings: "openfaas",
    refuses: (s) => [
      ...(s.manifests !== undefined ? [refusal("flavour", "an OpenFaaS Function is made from an image: give image, not manifests")] : []),
      ...(s.targetCpuPercent !== undefined
        ? [
            refusal(
              "targetCpuPercent",
              "OpenFaaS scales a function itself (its autoscaler, on requests per second): leave targetCpuPercent out",
            ),
          ]
        : []),
      ...(s.placement || s.nodes !== undefined
        ? [
            refusal(
              s.placement ? "placement" : "nodes",
              "an OpenFaaS Function's placement is its operator's (profiles): not with this flavour",
            ),
          ]
        : []),
      ...(s.database
        ? [refusal("database", "an OpenFaaS Function reads secrets as files, not env: bring the database yourself and give its URL in env")]
        : []),
      ...(s.openfaas?.gateway === undefined && s.endpoint === undefined && !s.portForward
        ? [
            refusal(
              ["openfaas", "gateway"],
              "say where the load goes: openfaas.gateway (the OpenFaaS gateway's URL), endpoint, or portForward",
            ),
          ]
        : []),
      ...(s.openfaas?.gateway !== undefined && (s.endpoint !== undefined || s.portForward)
        ? [refusal(["openfaas", "gateway"], "give openfaas.gateway, or endpoint/portForward, not both: each says where the load goes")]
        : []),
    ],
  },
} satisfies Record<KubernetesFlavour, FlavourRules>;

export const kubernetesSpec = kubernetesFields.superRefine((s, ctx) => {
  const sources = [s.image !== undefined, s.manifests !== undefined, s.helm !== undefined].filter(Boolean).length;
  if (sources !== 1)
    ctx.addIssue({
      code: "custom",
      path: ["image"],
      message: "give one of image (opsbench makes the objects), manifests (yours) or helm (your chart), not more",
    });
  if (s.helm !== undefined && (s.database || s.flavour || s.knative || s.openfaas))
    ctx.addIssue({
      code: "custom",
      path: ["helm"],
      message: "a chart brings its own objects: database, flavour, knative and openfaas go with image",
    });
  if (
    s.helm !== undefined &&
    (s.targetCpuPercent !== undefined ||
      s.resources ||
      s.placement ||
      s.nodes !== undefined ||
      s.replicas ||
      s.minReplicas ||
      s.maxReplicas)
  )
    ctx.addIssue({
      code: "custom",
      path: ["helm"],
      message: "with helm, replicas, HPA, resources, placement and nodes are the chart's own (set them in helm.values)",
    });
  if (s.database && s.manifests !== undefined)
    ctx.addIssue({
      code: "custom",
      path: ["database"],
      message: "with manifests, bring the database in them (infra/manifests/gke-50.yaml does); database goes with image",
    });
  appDatabaseEnvIssue(s, ctx);
  if (s.endpoint !== undefined && s.portForward)
    ctx.addIssue({
      code: "custom",
      path: ["portForward"],
      message: "give either endpoint (an address of yours) or portForward (through the API server), not both",
    });
  if (s.replicas !== undefined && (s.minReplicas !== undefined || s.maxReplicas !== undefined))
    ctx.addIssue({
      code: "custom",
      path: ["replicas"],
      message: "give either replicas (a fixed size) or minReplicas/maxReplicas, not both",
    });
  if (s.minReplicas !== undefined && s.maxReplicas !== undefined && s.minReplicas > s.maxReplicas)
    ctx.addIssue({
      code: "custom",
      path: ["minReplicas"],
      message: `minReplicas (${s.minReplicas}) is above maxReplicas (${s.maxReplicas})`,
    });
  if (s.targetCpuPercent !== undefined && s.image !== undefined && !s.resources?.cpuRequest)
    ctx.addIssue({
      code: "custom",
      path: ["resources", "cpuRequest"],
      message: "an HPA on CPU needs a cpuRequest (utilisation is measured against it)",
    });
  // Each flavour's settings go with it alone; and what it refuses beside it.
  for (const [flavour, rules] of Object.entries(KUBERNETES_FLAVOUR_RULES))
    if (rules.settings && s[rules.settings] && s.flavour !== flavour)
      ctx.addIssue({ code: "custom", path: [rules.settings], message: `${rules.settings} settings go with flavour "${flavour}"` });
  for (const { path, message } of s.flavour ? KUBERNETES_FLAVOUR_RULES[s.flavour].refuses(s) : [])
    ctx.addIssue({ code: "custom", path, message });
  if (s.nodes !== undefined && s.placement?.nodeSelector)
    ctx.addIssue({
      code: "custom",
      path: ["nodes"],
      message: "give nodes (opsbench holds that many nodes for the run) or placement.nodeSelector (yours), not both",
    });
  if (
    s.manifests !== undefined &&
    (s.targetCpuPercent !== undefined ||
      s.resources ||
      s.placement ||
      s.nodes !== undefined ||
      s.replicas ||
      s.minReplicas ||
      s.maxReplicas)
  )
    ctx.addIssue({
      code: "custom",
      path: ["manifests"],
      message: "with manifests, replicas, HPA, resources, placement and nodes are the manifests' own",
    });
});
export type KubernetesSpec = z.infer<typeof kubernetesSpec>;

/** min/max replicas with defaults: a fixed size, or 1..max (max defaults to min, or 10 with an HPA). */
export function kubernetesReplicas(spec: KubernetesSpec): { min: number; max: number } {
  const min = spec.replicas ?? spec.minReplicas ?? 1;
  const max = spec.replicas ?? spec.maxReplicas ?? (spec.targetCpuPercent ? Math.max(min, 10) : min);
  return { min, max: Math.max(min, max) };
}

/**
 * The platform resources behind an `endpoint`, so that their metrics land on the run's timeline: exactly one of
 * a namespace's Deployment (kubernetes credential), an Auto Scaling group with its ALB (aws credential), or a
 * Cloud Run service (gcp credential). opsbench only reads them: it never changes or deletes them.
 */
export const endpointLink = z
  .object({
    credential: credentialName,
    /** kubernetes: the namespace and the Deployment in it whose replicas, HPA and events are recorded. */
    namespace: dnsLabel.optional(),
    deployment: dnsLabel.optional(),
    /** aws: the Auto Scaling group (and its ALB's CloudWatch dimension, app/<name>/<id>, for requests and response times). */
    autoScalingGroupName: z.string().min(1).max(255).optional(),
    loadBalancer: z
      .string()
      .regex(/^app\/[\w-]+\/[0-9a-f]+$/, "the ALB's CloudWatch dimension: app/<name>/<id>")
      .optional(),
    /** gcp: the Cloud Run service (in projectId, default the credential's project). */
    cloudRunService: dnsLabel.optional(),
    projectId: z.string().min(1).max(64).optional(),
    /** aws and gcp: where the group or service is. */
    region: cloudRegion.optional(),
    /** aws and gcp: how long to wait for the platform's delayed metrics after the load. */
    metrics: platformMetricsSettings.optional(),
  })
  .strict()
  .superRefine((l, ctx) => {
    const given = [
      l.namespace && "namespace",
      l.autoScalingGroupName && "autoScalingGroupName",
      l.cloudRunService && "cloudRunService",
    ].filter(Boolean);
    if (given.length !== 1)
      ctx.addIssue({
        code: "custom",
        path: ["namespace"],
        message:
          given.length === 0
            ? "a link names what to observe: a namespace (with its deployment), an autoScalingGroupName or a cloudRunService"
            : `a link observes one thing; it names ${given.join(" and ")}`,
      });
    if (l.namespace && !l.deployment) ctx.addIssue({ code: "custom", path: ["deployment"], message: "name the Deployment to observe" });
    if ((l.autoScalingGroupName || l.cloudRunService) && !l.region)
      ctx.addIssue({ code: "custom", path: ["region"], message: "give the region of the group or service" });
    if (l.loadBalancer && !l.autoScalingGroupName)
      ctx.addIssue({ code: "custom", path: ["loadBalancer"], message: "loadBalancer goes with an autoScalingGroupName" });
  });
export type EndpointLink = z.infer<typeof endpointLink>;

/** The `endpoint` kind: an existing deployment at a URL; nothing is deployed. */
export const endpointSpec = z
  .object({
    url: z.url(),
    /** Optionally the platform resources behind it, so that their metrics land on the run's timeline. */
    linked: endpointLink.optional(),
    costModel: costModelDocument.optional(),
  })
  .strict();
export type EndpointSpec = z.infer<typeof endpointSpec>;

/** The nodes a kubernetes target's pods are held to (its spec's nodes), priced as that many nodes; null when unstated. */
export function heldNodesOfSpec(spec: unknown): number | null {
  const n = (spec as { nodes?: unknown } | null)?.nodes;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : null;
}

/** A CPU quantity in cores ("500m" = 0.5, "1" = 1, "1.5" = 1.5); null for anything else. */
export function kubeCpuCores(q: string): number | null {
  const m = /^(\d+(?:\.\d+)?)(m?)$/.exec(q);
  if (!m) return null;
  return m[2] === "m" ? Number(m[1]) / 1000 : Number(m[1]);
}

/** The CPU one pod (replica) of a target asks for, in cores: a kubernetes quantity or a local target's cores; null when unstated. */
export function podCpuOfSpec(spec: unknown): number | null {
  const r = (spec as { resources?: { cpuRequest?: unknown } } | null)?.resources;
  const q = r?.cpuRequest;
  if (typeof q === "number" && q > 0) return q;
  if (typeof q === "string") return kubeCpuCores(q);
  return null;
}
