// The openfaas-function flavour of the kubernetes kind (docs/kubernetes.md): an openfaas.com/v1 Function in the run's
// namespace, from which the OpenFaaS operator makes the function's Deployment (named after the function) and Service.
// The namespace carries the annotation the operator's multi-namespace mode asks for (openfaas: "1"). Ready is read
// from the conditions the operator sets on the Function: Ready (its desired state applied) and Healthy (every replica
// available). The load goes through the user's gateway, at /function/<name>.<namespace>, as OpenFaaS routes it.
import type { KubernetesObject } from "@kubernetes/client-node";
import { type KubernetesSpec, kubernetesReplicas } from "@opsbench/core";
import { ProviderError } from "../provider";
import { type Condition, conditionOf, describeCondition } from "./conditions";
import { KubeApiError, type KubeClient, kubeCall } from "./kube-client";
import { APP_NAME, namespaceOf, runLabels } from "./objects";

export const OPENFAAS_API = "openfaas.com/v1";
/** The namespace annotation OpenFaaS's operator looks for before it manages functions in a namespace. */
export const OPENFAAS_NAMESPACE_ANNOTATION = { openfaas: "1" };

export interface OpenFaasFunction extends KubernetesObject {
  spec: {
    name: string;
    image: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    environment?: Record<string, string>;
    requests?: { cpu?: string; memory?: string };
    limits?: { cpu?: string; memory?: string };
  };
  status?: {
    conditions?: Condition[];
    replicas?: number;
    availableReplicas?: number;
    observedGeneration?: number;
  };
}

/** The Function: the image, its env, requests and limits, and the scale bounds as OpenFaaS's labels. */
export function openFaasFunctionObject(spec: KubernetesSpec & { image: string }, runId: string): OpenFaasFunction {
  const { min, max } = kubernetesReplicas(spec);
  const r = spec.resources ?? {};
  const requests = { ...(r.cpuRequest ? { cpu: r.cpuRequest } : {}), ...(r.memoryRequest ? { memory: r.memoryRequest } : {}) };
  const limits = { ...(r.cpuLimit ? { cpu: r.cpuLimit } : {}), ...(r.memoryLimit ? { memory: r.memoryLimit } : {}) };
  return {
    apiVersion: OPENFAAS_API,
    kind: "Function",
    metadata: { name: APP_NAME, namespace: namespaceOf(runId), labels: runLabels(runId) },
    spec: {
      name: APP_NAME,
      image: spec.image,
      labels: {
        ...runLabels(runId),
        "com.openfaas.scale.min": String(min),
        "com.openfaas.scale.max": String(max),
        "com.openfaas.scale.zero": String(spec.openfaas?.scaleToZero ?? false),
      },
      // The of-watchdog and the classic watchdog both read `port` for the function's own server; the app reads PORT.
      environment: { PORT: String(spec.port), ...spec.env },
      ...(Object.keys(requests).length ? { requests } : {}),
      ...(Object.keys(limits).length ? { limits } : {}),
    },
  };
}

/**
 * Whether the Function is ready for the load: null when it is, else what it waits for. Ready=False means the operator
 * could not apply it (a bad spec, a missing secret): thrown at once, as waiting would not change it. Healthy=False is
 * a replica not (yet) available, which may pass.
 */
export function openFaasNotReady(f: OpenFaasFunction, want: number): string | null {
  const generation = f.metadata?.generation;
  if (!f.status || (generation !== undefined && f.status.observedGeneration !== undefined && f.status.observedGeneration < generation))
    return "the OpenFaaS operator has not reported on the Function yet (is it installed and watching this namespace?)";
  const ready = conditionOf(f, "Ready");
  const healthy = conditionOf(f, "Healthy");
  if (ready?.status === "False")
    throw new ProviderError(`the OpenFaaS operator could not apply the Function: ${describeCondition(ready, "Ready")}`);
  const available = f.status.availableReplicas ?? 0;
  if (ready?.status === "True" && healthy?.status === "True" && available >= want) return null;
  return `${describeCondition(ready, "Ready")}, ${describeCondition(healthy, "Healthy")}, ${available}/${want} replicas available`;
}

export async function createOpenFaasFunction(client: KubeClient, body: OpenFaasFunction): Promise<void> {
  try {
    await kubeCall(client, `creating OpenFaaS Function ${body.metadata?.name}`, () => client.objects.create(body));
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 404)
      throw new ProviderError(
        `the cluster at ${client.server} does not serve ${OPENFAAS_API} Function: install OpenFaaS with its operator there first (${err.message})`,
      );
    throw err;
  }
}

export async function readOpenFaasFunction(client: KubeClient, namespace: string, name = APP_NAME): Promise<OpenFaasFunction> {
  return kubeCall(client, `reading OpenFaaS Function ${name}`, () =>
    client.objects.read<OpenFaasFunction>({ apiVersion: OPENFAAS_API, kind: "Function", metadata: { name, namespace } }),
  );
}

/** Where the gateway serves the run's function. */
export const openFaasFunctionUrl = (gateway: string, runId: string) =>
  `${gateway.replace(/\/+$/, "")}/function/${APP_NAME}.${namespaceOf(runId)}`;
