// What each flavour of the kubernetes kind makes from the image (docs/kubernetes.md), by flavour: a Deployment with a
// Service and an HPA; a Knative Service, whose controller makes the Revision and its Deployment; an OpenFaaS Function,
// whose operator makes the Deployment. What each refuses in a spec is core's table (KUBERNETES_FLAVOUR_RULES).
import type { KubernetesFlavour, KubernetesSpec } from "@opsbench/core";
import type { ProviderContext } from "../provider";
import { type KubeClient, kubeCall } from "./kube-client";
import {
  createKnativeService,
  knativeNotReady,
  knativeServiceObject,
  podAutoscalerScale,
  readKnativeService,
  revisionDeployment,
} from "./knative";
import { APP_NAME, deploymentObject, hpaObject, serviceObject } from "./objects";
import {
  createOpenFaasFunction,
  OPENFAAS_NAMESPACE_ANNOTATION,
  openFaasFunctionObject,
  openFaasFunctionUrl,
  openFaasNotReady,
  readOpenFaasFunction,
} from "./openfaas";
import type { KubernetesState } from "./state";
import { waitFor } from "./wait-for";

/** What a flavour's objects came to once ready: the Deployment that serves, and the address its platform gives. */
export interface FlavourReady {
  /** The Deployment observed and waited for, when the flavour's controller named it (a Knative Revision's). */
  deployment?: string;
  knative?: { service: string; revision: string };
  /** Where the load goes when the flavour says (the Knative URL, the OpenFaaS gateway's function URL); null: the Service's. */
  url: string | null;
}

export interface KubernetesFlavourDeploy {
  /** Annotations of the run's namespace (OpenFaaS's operator watches only namespaces annotated for it). */
  namespaceAnnotations: Record<string, string>;
  /** Its part of the state saved before anything is made, so teardown and observe know what it made. */
  state: { openfaas?: { function: string } };
  /** The address the spec names before anything is deployed (the OpenFaaS gateway), for the host policy. */
  knownEndpoint: (spec: KubernetesSpec) => string | undefined;
  /** Makes its objects from the image in namespace `ns`. */
  create: (client: KubeClient, spec: KubernetesSpec & { image: string }, runId: string, ns: string) => Promise<void>;
  /** Waits until what its controller makes from them is ready (`min` ready replicas), and says what serves. */
  ready: (client: KubeClient, spec: KubernetesSpec, ns: string, min: number, ctx: ProviderContext) => Promise<FlavourReady>;
  /** While the load runs (observe.ts), each point. */
  observe: {
    /** The scale its controller wants (a Knative PodAutoscaler's); absent: the HPA's wish, else the Deployment's replicas. */
    desired?: (client: KubeClient, state: KubernetesState) => Promise<number | null>;
    /** What it adds to the point's detail, given the cold starts counted so far (times its Deployment went from 0 ready to some). */
    detail: (state: KubernetesState, coldStarts: number) => Record<string, unknown>;
  };
}

export const KUBERNETES_FLAVOUR_DEPLOYS = {
  deployment: {
    namespaceAnnotations: {},
    state: {},
    knownEndpoint: () => undefined,
    async create(client, spec, runId, ns) {
      const body = deploymentObject(spec, runId);
      await kubeCall(client, `creating Deployment ${APP_NAME}`, () => client.apps.createNamespacedDeployment({ namespace: ns, body }));
      const service = serviceObject(spec, runId);
      await kubeCall(client, `creating Service ${APP_NAME}`, () => client.core.createNamespacedService({ namespace: ns, body: service }));
      const h = hpaObject(spec, runId);
      if (h)
        await kubeCall(client, `creating HPA ${APP_NAME}`, () =>
          client.autoscaling.createNamespacedHorizontalPodAutoscaler({ namespace: ns, body: h }),
        );
    },
    ready: async () => ({ url: null }),
    // Its replicas do not go to zero: no cold starts to count.
    observe: { detail: () => ({}) },
  },
  "knative-service": {
    namespaceAnnotations: {},
    state: {},
    knownEndpoint: () => undefined,
    create: (client, spec, runId) => createKnativeService(client, knativeServiceObject(spec, runId)),
    // Its controller makes the Revision and the Revision's Deployment; observed from then on.
    async ready(client, spec, ns, _min, ctx) {
      // The Route (and so the Service's Ready) only matters when the load goes to the Service's own URL.
      const withRoute = !spec.endpoint && !spec.portForward;
      let revision = "";
      let url: string | null = null;
      await waitFor(
        async () => {
          const r = knativeNotReady(await readKnativeService(client, ns), withRoute);
          if ("waiting" in r) return r.waiting;
          revision = r.revision;
          url = r.url;
          return null;
        },
        spec.readyTimeoutMs,
        `the Knative Service ${APP_NAME} to be ${withRoute ? "Ready" : "ConfigurationsReady"}`,
        ctx.signal,
      );
      const deployment = revisionDeployment(revision);
      await ctx.event?.("info", `Knative Service ${APP_NAME}: revision ${revision} ready (Deployment ${deployment})`, { revision });
      return { deployment, knative: { service: APP_NAME, revision }, url: spec.endpoint ? null : url };
    },
    observe: {
      // The scale the Revision's PodAutoscaler wants (null until the KPA says), not the Deployment's spec.
      desired: async (client, state) =>
        state.knative ? ((await podAutoscalerScale(client, state.namespace, state.knative.revision))?.desired ?? null) : null,
      detail: (state, coldStarts) => ({ ...(state.knative ? { revision: state.knative.revision } : {}), coldStarts }),
    },
  },
  "openfaas-function": {
    namespaceAnnotations: OPENFAAS_NAMESPACE_ANNOTATION,
    state: { openfaas: { function: APP_NAME } },
    knownEndpoint: (spec) => spec.openfaas?.gateway,
    create: (client, spec, runId) => createOpenFaasFunction(client, openFaasFunctionObject(spec, runId)),
    // Its operator makes the Deployment (named after the Function) and says when it is Healthy.
    async ready(client, spec, ns, min, ctx) {
      await waitFor(
        async () => openFaasNotReady(await readOpenFaasFunction(client, ns), min),
        spec.readyTimeoutMs,
        `the OpenFaaS Function ${APP_NAME} to be Ready and Healthy`,
        ctx.signal,
      );
      await ctx.event?.("info", `OpenFaaS Function ${APP_NAME}: Ready and Healthy (Deployment ${APP_NAME})`);
      const gateway = spec.openfaas?.gateway;
      return { url: gateway ? openFaasFunctionUrl(gateway, ctx.runId) : null };
    },
    observe: { detail: (_state, coldStarts) => ({ coldStarts }) },
  },
} satisfies Record<KubernetesFlavour, KubernetesFlavourDeploy>;

/** A spec's flavour's deploy (the default: a Deployment). */
export const flavourOf = (spec: KubernetesSpec): KubernetesFlavourDeploy => KUBERNETES_FLAVOUR_DEPLOYS[spec.flavour ?? "deployment"];
