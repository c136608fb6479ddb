// For clusters that give no load-balancer address and no ingress: a listener on 127.0.0.1 whose every connection
// becomes a port-forward (through the API server) to the next ready pod of the run's Deployment, so connections
// spread over the pods as a Service would spread them. The load network then reaches it like any loopback target.
// The listener lives in the worker process for the run: teardown closes it, and it ends with the process.
import net, { type AddressInfo } from "node:net";
import type { V1Pod } from "@kubernetes/client-node";
import type { KubeClient } from "./kube-client";

/** How long a list of the ready pods is used before it is read again (pods the HPA adds join within this). */
const PODS_TTL_MS = 2000;

const listeners = new Map<string, { server: net.Server; sockets: Set<net.Socket> }>();

const isReady = (p: V1Pod) =>
  !p.metadata?.deletionTimestamp && (p.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");

/** Opens the listener for the Deployment's pods in `namespace`; returns the base URL the load goes to. */
export async function openPortForward(client: KubeClient, namespace: string, deployment: string, port: number): Promise<string> {
  const d = await client.apps.readNamespacedDeployment({ name: deployment, namespace });
  const labelSelector = Object.entries(d.spec?.selector?.matchLabels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  let pods: string[] = [];
  let listedAt = 0;
  let next = 0;
  const readyPods = async () => {
    if (Date.now() - listedAt > PODS_TTL_MS) {
      const list = await client.core.listNamespacedPod({ namespace, labelSelector });
      pods = list.items.filter(isReady).map((p) => p.metadata?.name ?? "");
      listedAt = Date.now();
    }
    return pods;
  };
  const forward = async (socket: net.Socket) => {
    const ready = await readyPods();
    if (ready.length === 0) throw new Error("no ready pod");
    const pod = ready[next++ % ready.length] ?? "";
    const ws = await client.portForward.portForward(namespace, pod, [port], socket, null, socket);
    if (typeof ws === "function") throw new Error("unexpected restartable port-forward");
    ws.on("close", () => socket.end());
    ws.on("error", () => socket.destroy());
    socket.on("close", () => ws.close());
  };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    // A connection that cannot be forwarded is closed: k6 counts it as a failed request.
    socket.on("error", () => socket.destroy());
    forward(socket).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  await closePortForward(namespace);
  listeners.set(namespace, { server, sockets });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes the namespace's listener and its connections, if this process has one. */
export async function closePortForward(namespace: string): Promise<void> {
  const open = listeners.get(namespace);
  if (!open) return;
  listeners.delete(namespace);
  for (const socket of open.sockets) socket.destroy();
  await new Promise((resolve) => open.server.close(resolve));
}
