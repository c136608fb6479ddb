import { CredentialSelect } from "@/features/targets/target-form/credential-select";
import { FormSection } from "@/features/targets/target-form/form-section";
import { ModeChoice } from "@/features/targets/target-form/mode-choice";
import type { KindFieldsProps } from "./kind-props";
import { type KubernetesEndpoint, type KubernetesSize, type KubernetesSource, isKnative, isOpenFaas } from "./kubernetes-spec";

const FLAVOUR_HINT = {
  deployment: "opsbench makes a Deployment, a Service and an HPA",
  knative: "a serving.knative.dev Service: Knative makes the rest (Knative Serving must be on the cluster)",
  openfaas: "an openfaas.com Function: OpenFaaS's operator makes the rest (OpenFaaS with its operator must be on the cluster)",
};

/**
 * kubernetes: the cluster (a kubeconfig), then what opsbench makes of an image (a Deployment, a Knative Service
 * with its concurrency settings, or an OpenFaaS Function) with replicas, HPA, resources and pod density, or own manifests.
 */
export function KubernetesFields(p: KindFieldsProps) {
  const { num, text, area, check, pick, value, set } = p.inputs;
  // A Knative Service is made from an image, scales on concurrency and has no pod placement (the schema refuses them).
  const knative = isKnative({ flavour: value("flavour") });
  const openfaas = isOpenFaas({ flavour: value("flavour") });
  const flavoured = knative || openfaas;
  const source = flavoured ? "image" : ((value("@source") || "image") as KubernetesSource);
  const size = (value("@size") || "hpa") as KubernetesSize;
  const endpoint = (value("@endpoint") || "load-balancer") as KubernetesEndpoint;
  return (
    <>
      <FormSection title="Cluster">
        <CredentialSelect
          kind="kubernetes"
          path="credential"
          value={value("credential")}
          onChange={set("credential")}
          credentials={p.credentials}
          errors={p.errors}
        />
        {num("Ready within (ms)", "readyTimeoutMs", {
          hint: knative
            ? "for the Knative Service and its Revision"
            : openfaas
              ? "for the Function to be Ready and Healthy"
              : "for the Deployment (and the HPA in reset)",
        })}
      </FormSection>
      <FormSection title="What runs" note="Each run gets its own namespace opsbench-<run>, deleted at teardown.">
        {!flavoured && (
          <ModeChoice<KubernetesSource>
            name="k8s-source"
            value={source}
            onChange={set("@source")}
            modes={[
              ["image", "an image: opsbench makes the objects"],
              ["manifests", "my own manifests"],
            ]}
          />
        )}
        {source === "image" ? (
          <>
            {pick("Flavour", "flavour", ["knative-service", "openfaas-function"], "Deployment", {
              labels: { "knative-service": "Knative Service", "openfaas-function": "OpenFaaS Function" },
              hint: knative ? FLAVOUR_HINT.knative : openfaas ? FLAVOUR_HINT.openfaas : FLAVOUR_HINT.deployment,
            })}
            {text("Image", "image", { placeholder: "ghcr.io/you/app:1", wide: true })}
            {num("Container port", "port", {
              hint: knative ? "Knative routes to it" : openfaas ? "given to the function as PORT" : "the Service forwards port 80 to it",
            })}
          </>
        ) : (
          <>
            {area("Manifests (YAML, documents separated by ---)", "manifests", {
              rows: 10,
              hint: "namespaced kinds only (Deployment, Service, HPA, ConfigMap, Ingress...), applied into the run's namespace",
            })}
            {text("Deployment to observe", "deployment", { placeholder: "the first one" })}
          </>
        )}
      </FormSection>
      {knative && (
        <FormSection
          title="Knative"
          note="The Revision's concurrency and timeout, and what Knative's autoscaler aims at; empty: the cluster's defaults."
        >
          {num("Container concurrency", "knative.containerConcurrency", {
            placeholder: "0",
            hint: "requests one pod takes at a time; 0 = no limit",
          })}
          {num("Target concurrency", "knative.targetConcurrency", {
            placeholder: "cluster's",
            hint: "concurrent requests per pod the autoscaler aims at",
          })}
          {num("Target burst capacity", "knative.targetBurstCapacity", {
            placeholder: "cluster's",
            hint: "0: no activator while pods run; -1: always",
          })}
          {num("Request timeout (s)", "knative.timeoutSeconds", { placeholder: "300" })}
        </FormSection>
      )}
      {openfaas && (
        <FormSection title="OpenFaaS" note="The watchdog's mode (http, serializing, streaming) is the image's: set its mode in env.">
          <div className="col-span-2 flex flex-col gap-1 md:col-span-2">
            {check("May scale to zero when idle", "openfaas.scaleToZero", "(com.openfaas.scale.zero)")}
          </div>
        </FormSection>
      )}
      {source === "image" && (
        <>
          <FormSection title="Replicas">
            <ModeChoice<KubernetesSize>
              name="k8s-size"
              value={size}
              onChange={set("@size")}
              modes={[
                [
                  "hpa",
                  knative
                    ? "min/max scale, Knative's autoscaler between them"
                    : openfaas
                      ? "min/max scale, OpenFaaS's autoscaler between them"
                      : "min/max with an HPA on CPU",
                ],
                ["fixed", "a fixed number"],
              ]}
            />
            {size === "fixed" ? (
              num("Replicas", "replicas")
            ) : (
              <>
                {num(flavoured ? "Min scale" : "Min replicas", "minReplicas", { placeholder: "1" })}
                {num(flavoured ? "Max scale" : "Max replicas", "maxReplicas", { placeholder: flavoured ? "min" : "10" })}
                {!flavoured && num("HPA CPU target (%)", "targetCpuPercent", { hint: "of the CPU request (GKE-50: 50)" })}
              </>
            )}
          </FormSection>
          <FormSection title="Per pod" note="Quantities as Kubernetes writes them: CPU 500m or 1, memory 256Mi or 1Gi.">
            {text("CPU request", "resources.cpuRequest", { placeholder: "none", hint: flavoured ? undefined : "the HPA's 100%" })}
            {text("CPU limit", "resources.cpuLimit", { placeholder: "none" })}
            {text("Memory request", "resources.memoryRequest", { placeholder: "none" })}
            {text("Memory limit", "resources.memoryLimit", { placeholder: "none" })}
          </FormSection>
          {!flavoured && (
            <FormSection title="Pod density">
              <div className="col-span-2 flex flex-col gap-1 md:col-span-2">
                {check("At most one pod per node", "placement.onePodPerNode", "(anti-affinity)")}
                {check("Spread pods evenly over nodes", "placement.spreadEvenly", "(topology spread)")}
              </div>
              {text("Node selector", "placement.nodeSelector", {
                placeholder: "disktype=ssd, pool=bench",
                hint: "label=value pairs, comma-separated",
              })}
              {num("Nodes held for the run", "nodes", {
                placeholder: "none",
                hint: "the pods go only to this many free nodes, labelled for the run (no resize; the credential must allow it)",
              })}
            </FormSection>
          )}
        </>
      )}
      <FormSection title="Where the load goes">
        <ModeChoice<KubernetesEndpoint>
          name="k8s-endpoint"
          value={endpoint}
          onChange={set("@endpoint")}
          modes={[
            [
              "load-balancer",
              knative
                ? "the Knative Service's URL (the cluster's ingress)"
                : openfaas
                  ? "the OpenFaaS gateway's route of the function"
                  : "the Service's load-balancer address",
            ],
            ["url", "a URL I give (an ingress)"],
            ["port-forward", "port-forwards through the API server"],
          ]}
        />
        {endpoint === "url" && text("Ingress URL", "endpoint", { placeholder: "https://bench.example.com", wide: true })}
        {openfaas &&
          endpoint === "load-balancer" &&
          text("Gateway URL", "openfaas.gateway", {
            placeholder: "http://gateway.example.com:8080",
            wide: true,
            hint: "the load goes to <gateway>/function/app.opsbench-<run>",
          })}
        <p className="col-span-2 text-[11px] text-zinc-500 md:col-span-4">
          Port-forwards suit a cluster with no load balancer and no ingress: each connection goes to the next ready pod through the API
          server, which adds latency and may cap throughput, so such runs are flagged.
        </p>
      </FormSection>
    </>
  );
}
