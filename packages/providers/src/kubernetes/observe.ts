// What a kubernetes deployment looks like while the load runs: ready and desired replicas, the HPA's current and
// target CPU utilisation, container restarts, the cluster's node count; and the namespace's events, each put on
// the run's timeline once (Warning events as warnings). A Knative Service's Revision: its Deployment's replicas, the
// scale its PodAutoscaler wants (desired), and cold starts: the times the Revision went from no ready pod to some (an
// OpenFaaS Function's Deployment, the same).
import type { InfraPoint, ObserveWindow, ProviderContext } from "../provider";
import { KUBERNETES_FLAVOUR_DEPLOYS, type KubernetesFlavourDeploy } from "./flavours";
import type { KubeClient } from "./kube-client";
import { RUN_LABEL } from "./objects";
import type { KubernetesState } from "./state";
import { sleep } from "./sleep";

export async function* observeNamespace(
  client: KubeClient,
  state: KubernetesState,
  window: ObserveWindow,
  ctx: ProviderContext,
): AsyncIterable<InfraPoint> {
  const namespace = state.namespace;
  const seen = new Set<string>();
  // A failed read leaves its part of the point empty; the next round tries again.
  const get = <T>(read: () => Promise<T>) => read().catch(() => null);
  const hpa = state.hpa;
  // What its flavour adds (flavours.ts); a state recorded before the flavour was is a Deployment's.
  const flavour: KubernetesFlavourDeploy["observe"] = KUBERNETES_FLAVOUR_DEPLOYS[state.flavour ?? "deployment"].observe;
  const readDesired = flavour.desired;
  let coldStarts = 0;
  let lastReady: number | null = null;
  while (!window.signal.aborted) {
    const [d, h, pods, nodes, events, flavourDesired] = await Promise.all([
      get(() => client.apps.readNamespacedDeployment({ name: state.deployment, namespace })),
      hpa ? get(() => client.autoscaling.readNamespacedHorizontalPodAutoscaler({ name: hpa, namespace })) : null,
      get(() => client.core.listNamespacedPod({ namespace })),
      // A run that holds nodes counts those; else the cluster's.
      get(() => client.core.listNode(state.nodes !== undefined ? { labelSelector: `${RUN_LABEL}=${state.runId}` } : {})),
      get(() => client.core.listNamespacedEvent({ namespace })),
      readDesired ? get(() => readDesired(client, state)) : undefined,
    ]);
    const current = h?.status?.currentMetrics?.find((m) => m.type === "Resource" && m.resource?.name === "cpu")?.resource?.current
      .averageUtilization;
    const target = h?.spec?.metrics?.find((m) => m.type === "Resource" && m.resource?.name === "cpu")?.resource?.target.averageUtilization;
    const restarts = pods?.items.reduce((sum, p) => sum + (p.status?.containerStatuses ?? []).reduce((s, c) => s + c.restartCount, 0), 0);
    // A window that ended while these were read cut some of them short: no half-empty last point.
    const ready = d?.status?.readyReplicas ?? 0;
    if (d && lastReady === 0 && ready > 0) coldStarts++;
    if (d) lastReady = ready;
    if (d && !window.signal.aborted)
      yield {
        ts: new Date(),
        replicas: ready,
        cpuPercent: current ?? null,
        detail: {
          kind: "kubernetes",
          ready,
          desired: flavourDesired !== undefined ? flavourDesired : (h?.status?.desiredReplicas ?? d.spec?.replicas ?? null),
          hpaCurrentCpuPercent: current ?? null,
          hpaTargetCpuPercent: target ?? null,
          restarts: restarts ?? null,
          nodes: nodes?.items.length ?? null,
          ...flavour.detail(state, coldStarts),
        },
      };
    for (const e of events?.items ?? []) {
      const id = e.metadata?.uid ? `${e.metadata.uid}/${e.count ?? 1}` : "";
      if (!id || seen.has(id)) continue;
      seen.add(id);
      const what = `${e.involvedObject.kind ?? ""} ${e.involvedObject.name ?? ""}`.trim();
      await ctx.event?.(e.type === "Warning" ? "warn" : "info", `kubernetes: ${what}: ${e.reason ?? ""} ${e.message ?? ""}`.trim(), {
        source: "kubernetes",
        reason: e.reason ?? null,
        object: what,
      });
    }
    await sleep(window.intervalMs ?? 2000, window.signal);
  }
}
