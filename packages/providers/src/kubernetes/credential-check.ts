// Checks a kubeconfig the way the worker will use it: the cluster answers, and a SelfSubjectAccessReview
// says yes for every verb opsbench needs (docs/kubernetes.md). The message names what is missing.
import type { V1SelfSubjectAccessReview } from "@kubernetes/client-node";
import type { CredentialSecret } from "@opsbench/core";
import { type CredentialCheckContext, type CredentialCheckResult, ProviderError } from "../provider";
import { type KubeClient, kubeCall, kubeClientOf } from "./kube-client";

/** What the kubernetes provider and the reaper do, as (verb, group, resource). */
export const REQUIRED_KUBERNETES_ACCESS = [
  ["create", "", "namespaces"],
  ["delete", "", "namespaces"],
  ["list", "", "namespaces"],
  ["create", "apps", "deployments"],
  ["get", "apps", "deployments"],
  ["create", "", "services"],
  ["get", "", "services"],
  ["create", "autoscaling", "horizontalpodautoscalers"],
  ["get", "autoscaling", "horizontalpodautoscalers"],
  ["list", "", "pods"],
  ["list", "", "events"],
  ["list", "", "nodes"],
] as const;

/** The verbs this client's user may not use, as "create apps/deployments"; [] when it may use all. */
export async function missingKubernetesAccess(client: KubeClient): Promise<string[]> {
  const answers = await Promise.all(
    REQUIRED_KUBERNETES_ACCESS.map(async ([verb, group, resource]) => {
      const body: V1SelfSubjectAccessReview = {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { resourceAttributes: { verb, group, resource } },
      };
      const review = await kubeCall(client, `checking whether it may ${verb} ${resource}`, () =>
        client.authorization.createSelfSubjectAccessReview({ body }),
      );
      return review.status?.allowed ? null : `${verb} ${group ? `${group}/` : ""}${resource}`;
    }),
  );
  return answers.filter((a): a is string => a !== null);
}

export async function checkKubernetesCredential(
  secret: Extract<CredentialSecret, { kind: "kubernetes" }>,
  ctx: CredentialCheckContext,
): Promise<CredentialCheckResult> {
  try {
    const client = await kubeClientOf(secret, { signal: ctx.signal, loadHosts: ctx.loadHosts, protectedPorts: ctx.protectedPorts });
    const missing = await missingKubernetesAccess(client);
    if (missing.length > 0)
      return { ok: false, message: `the kubeconfig's user may not ${missing.join(", ")} on the cluster at ${client.server}` };
    return { ok: true, identity: `${client.userName}@${client.server}` };
  } catch (err) {
    if (err instanceof ProviderError) return { ok: false, message: err.message };
    throw err;
  }
}
