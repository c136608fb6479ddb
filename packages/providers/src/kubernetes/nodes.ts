// The nodes a run holds (the spec's `nodes`, a study's nodes factor): opsbench labels that many free nodes of the
// cluster with the run's label and the run's pods select that label, so the app runs on exactly those nodes; the
// cluster is not resized. A node is free when it is Ready, not cordoned, untainted for scheduling and held by no other
// run. Each label is written with the node's resourceVersion, so two runs cannot take the same node. Teardown and the
// reaper release a run's nodes by the label alone.
import type { V1Node } from "@kubernetes/client-node";
import { ProviderError } from "../provider";
import { isConflict, type KubeClient, kubeCall } from "./kube-client";
import { RUN_LABEL } from "./objects";

const isReady = (n: V1Node) => n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
/**
 * The taints that mirror the Ready condition (read above): the node lifecycle controller removes them a moment after a
 * node turns Ready, and the pods wait for that within readyTimeoutMs. A node that just joined still has them.
 */
const MIRRORS_READY = new Set(["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]);

/** Why a node cannot be held, or null when it is free. */
function notFree(n: V1Node): string | null {
  const holder = n.metadata?.labels?.[RUN_LABEL];
  if (holder) return `held by run ${holder}`;
  if (!isReady(n)) return "not Ready";
  if (n.spec?.unschedulable) return "cordoned";
  const taint = (n.spec?.taints ?? []).find((t) => (t.effect === "NoSchedule" || t.effect === "NoExecute") && !MIRRORS_READY.has(t.key));
  if (taint) return `tainted ${taint.key}${taint.value ? `=${taint.value}` : ""}:${taint.effect}`;
  return null;
}

async function labelNode(client: KubeClient, node: V1Node, value: string | null): Promise<void> {
  const name = node.metadata?.name ?? "";
  await kubeCall(client, `${value ? "labelling" : "releasing"} node ${name}`, () =>
    client.objects.patch(
      {
        apiVersion: "v1",
        kind: "Node",
        // With the resourceVersion read, a node another run labelled meanwhile is a conflict, not a shared node.
        metadata: { name, labels: { [RUN_LABEL]: value }, ...(value ? { resourceVersion: node.metadata?.resourceVersion } : {}) },
      } as never,
      undefined,
      undefined,
      "opsbench",
      undefined,
      "application/merge-patch+json",
    ),
  );
}

/** How many times a node that changed between its read and its label is read again (nodes' status changes often). */
const LABEL_TRIES = 5;

/**
 * Labels `count` free nodes for the run (by name order); throws naming each node's state when too few are free, and
 * releases any it took. A node whose resourceVersion moved since it was listed (a status update, or another run's
 * label) is a conflict: the nodes are listed again and judged anew.
 */
export async function holdNodes(client: KubeClient, runId: string, count: number): Promise<string[]> {
  const held: string[] = [];
  try {
    for (let tries = 1; held.length < count; tries++) {
      const nodes = (await kubeCall(client, "listing the cluster's nodes", () => client.core.listNode())).items;
      const name = (n: V1Node) => n.metadata?.name ?? "";
      const ours = (n: V1Node) => n.metadata?.labels?.[RUN_LABEL] === runId;
      const usable = nodes.filter((n) => ours(n) || notFree(n) === null);
      if (usable.length < count) {
        const why = nodes.map((n) => `${name(n)}: ${notFree(n) ?? "free"}`).join("; ");
        throw new ProviderError(`the spec asks for ${count} nodes; ${usable.length} of the cluster's ${nodes.length} are free (${why})`);
      }
      const free = usable.filter((n) => !ours(n)).sort((a, b) => name(a).localeCompare(name(b)));
      for (const node of free.slice(0, count - held.length)) {
        try {
          await labelNode(client, node, runId);
          held.push(name(node));
        } catch (err) {
          if (!isConflict(err) || tries >= LABEL_TRIES) throw err;
          break; // listed again
        }
      }
    }
  } catch (err) {
    await releaseNodes(client, runId);
    if (isConflict(err)) throw new ProviderError(`the free nodes kept changing while they were labelled (${LABEL_TRIES} tries): try again`);
    throw err;
  }
  return held.sort();
}

/** The nodes holding the run's label (every run's with `runId` undefined). */
export async function heldNodes(client: KubeClient, runId?: string): Promise<V1Node[]> {
  const labelSelector = runId ? `${RUN_LABEL}=${runId}` : RUN_LABEL;
  return (await kubeCall(client, "listing held nodes", () => client.core.listNode({ labelSelector }))).items;
}

/** Removes the run's label from every node that has it; returns their names. */
export async function releaseNodes(client: KubeClient, runId: string): Promise<string[]> {
  const nodes = await heldNodes(client, runId);
  for (const node of nodes) await labelNode(client, node, null);
  return nodes.map((n) => n.metadata?.name ?? "");
}
