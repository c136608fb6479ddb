import { CredentialSelect } from "@/features/targets/target-form/credential-select";
import { FormSection } from "@/features/targets/target-form/form-section";
import { ModeChoice } from "@/features/targets/target-form/mode-choice";
import type { KindFieldsProps } from "./kind-props";
import type { KubernetesFlavour } from "@opsbench/core";
import type { ReactNode } from "react";
import type { KindInputs } from "@/features/targets/target-form/kind-inputs";
import {
  FRAMEWORK_FLAVOURS,
  flavourLabel,
  flavourOfValues,
  type KubernetesEndpoint,
  type KubernetesSize,
  type KubernetesSource,
  kubernetesFlavourForm,
} from "./kubernetes-spec";

/** A flavour's own section of boxes (its settings), if it has one; its other boxes and words are its form row (kubernetes-spec.ts). */
const FLAVOUR_SECTIONS = {
  deployment: null,
  "knative-service": ({ num }) => (
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
  ),
  "openfaas-function": ({ check }) => (
    <FormSection title="OpenFaaS" note="The watchdog's mode (http, serializing, streaming) is the image's: set its mode in env.">
      <div className="col-span-2 flex flex-col gap-1 md:col-span-2">
        {check("May scale to zero when idle", "openfaas.scaleToZero", "(com.openfaas.scale.zero)")}
      </div>
    </FormSection>
  ),
} satisfies Record<KubernetesFlavour, ((inputs: KindInputs) => ReactNode) | null>;

/**
 * kubernetes: the cluster (a kubeconfig), then what opsbench makes of an image (a Deployment, a Knative Service
 * with its concurrency settings, or an OpenFaaS Function) with replicas, HPA, resources and pod density, or own manifests.
 */
export function KubernetesFields(p: KindFieldsProps) {
  const { num, text, area, check, pick, value, set } = p.inputs;
  // A framework's flavour is made from an image, scales itself and has no pod placement (the schema refuses them).
  const flavourKey = flavourOfValues({ flavour: value("flavour") });
  const flavour = kubernetesFlavourForm({ flavour: flavourKey });
  const section = FLAVOUR_SECTIONS[flavourKey];
  const plain = flavour.deployment;
  const source = plain ? ((value("@source") || "image") as KubernetesSource) : "image";
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
        {num("Ready within (ms)", "readyTimeoutMs", { hint: flavour.hints.readyWithin })}
      </FormSection>
      <FormSection title="What runs" note="Each run gets its own namespace opsbench-<run>, deleted at teardown.">
        {plain && (
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
            {pick("Flavour", "flavour", FRAMEWORK_FLAVOURS, flavourLabel("deployment"), {
              labels: Object.fromEntries(FRAMEWORK_FLAVOURS.map((f) => [f, flavourLabel(f)])),
              hint: flavour.hints.flavour,
            })}
            {text("Image", "image", { placeholder: "ghcr.io/you/app:1", wide: true })}
            {num("Container port", "port", { hint: flavour.hints.port })}
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
      {section?.(p.inputs)}
      {source === "image" && (
        <>
          <FormSection title="Replicas">
            <ModeChoice<KubernetesSize>
              name="k8s-size"
              value={size}
              onChange={set("@size")}
              modes={[
                ["hpa", flavour.hints.autoscaled],
                ["fixed", "a fixed number"],
              ]}
            />
            {size === "fixed" ? (
              num("Replicas", "replicas")
            ) : (
              <>
                {num(plain ? "Min replicas" : "Min scale", "minReplicas", { placeholder: "1" })}
                {num(plain ? "Max replicas" : "Max scale", "maxReplicas", { placeholder: plain ? "10" : "min" })}
                {plain && num("HPA CPU target (%)", "targetCpuPercent", { hint: "of the CPU request (GKE-50: 50)" })}
              </>
            )}
          </FormSection>
          <FormSection title="Per pod" note="Quantities as Kubernetes writes them: CPU 500m or 1, memory 256Mi or 1Gi.">
            {text("CPU request", "resources.cpuRequest", { placeholder: "none", hint: plain ? "the HPA's 100%" : undefined })}
            {text("CPU limit", "resources.cpuLimit", { placeholder: "none" })}
            {text("Memory request", "resources.memoryRequest", { placeholder: "none" })}
            {text("Memory limit", "resources.memoryLimit", { placeholder: "none" })}
          </FormSection>
          {plain && (
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
            ["load-balancer", flavour.hints.loadBalancer],
            ["url", "a URL I give (an ingress)"],
            ["port-forward", "port-forwards through the API server"],
          ]}
        />
        {endpoint === "url" && text("Ingress URL", "endpoint", { placeholder: "https://bench.example.com", wide: true })}
        {flavour.loadBalancerBox &&
          endpoint === "load-balancer" &&
          text(flavour.loadBalancerBox.label, flavour.loadBalancerBox.path, {
            placeholder: flavour.loadBalancerBox.placeholder,
            wide: true,
            hint: flavour.loadBalancerBox.hint,
          })}
        <p className="col-span-2 text-2xs text-zinc-500 md:col-span-4">
          Port-forwards suit a cluster with no load balancer and no ingress: each connection goes to the next ready pod through the API
          server, which adds latency and may cap throughput, so such runs are flagged.
        </p>
      </FormSection>
    </>
  );
}
