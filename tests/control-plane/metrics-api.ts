// The resource metrics API (metrics.k8s.io/v1beta1) for the test control plane, so that its HPA acts. kwok's
// pods run no containers, so their CPU is the stand-in's: the local process that serves the load, measured
// from /proc and shared equally among the Running pods the HPA asks about (the load a Service would spread).
// It is an aggregated API: registered with an APIService whose Service is an ExternalName "localhost" (the
// aggregator then proxies to https://localhost:<port>, no kube-proxy needed), served over TLS with the
// certificate kube-apiserver generated for itself.
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { api, type ControlPlane } from "./control-plane";

const GROUP_VERSION = "metrics.k8s.io/v1beta1";
/** The window each sample covers; the HPA ignores a pod's sample until one window has passed since it became Ready. */
const WINDOW_S = 5;
/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const CLOCK_TICKS = 100;

export interface MetricsApi {
  /** Whose CPU the pods report: a process id, or null to report no pods at all (the HPA then holds). */
  measure(pid: number | null): void;
  stop(): Promise<void>;
}

/** CPU seconds a process has used (user + system), from /proc/<pid>/stat. */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command (which may hold spaces) start after the last ")"; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

interface Pod {
  metadata: { name: string; namespace: string; labels?: Record<string, string>; creationTimestamp?: string };
  spec: { containers: { name: string }[] };
  status?: { phase?: string };
}

export async function startMetricsApi(cp: ControlPlane): Promise<MetricsApi> {
  let pid: number | null = null;
  // One sample a second; the rate is taken over the last WINDOW_S seconds.
  let samples: { at: number; cpu: number }[] = [];
  const sampler = setInterval(() => {
    if (pid === null) return;
    try {
      samples = [...samples.filter((s) => s.at > Date.now() - (WINDOW_S + 1) * 1000), { at: Date.now(), cpu: cpuSecondsOf(pid) }];
    } catch {
      samples = [];
    }
  }, 1000);
  const cores = () => {
    const first = samples[0];
    const last = samples.at(-1);
    return first && last && last.at > first.at ? (last.cpu - first.cpu) / ((last.at - first.at) / 1000) : 0;
  };

  const podMetrics = (pod: Pod, podCores: number) => ({
    metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace, labels: pod.metadata.labels ?? {} },
    timestamp: new Date().toISOString(),
    window: `${WINDOW_S}s`,
    containers: pod.spec.containers.map((c) => ({
      name: c.name,
      usage: { cpu: `${Math.round((podCores * 1e9) / pod.spec.containers.length)}n`, memory: "64Mi" },
    })),
  });

  const answer = async (url: URL): Promise<unknown> => {
    const p = url.pathname;
    if (p === "/apis")
      return {
        kind: "APIGroupList",
        apiVersion: "v1",
        groups: [
          {
            name: "metrics.k8s.io",
            versions: [{ groupVersion: GROUP_VERSION, version: "v1beta1" }],
            preferredVersion: { groupVersion: GROUP_VERSION, version: "v1beta1" },
          },
        ],
      };
    if (p === `/apis/${GROUP_VERSION}`)
      return {
        kind: "APIResourceList",
        apiVersion: "v1",
        groupVersion: GROUP_VERSION,
        resources: [{ name: "pods", singularName: "", namespaced: true, kind: "PodMetrics", verbs: ["get", "list"] }],
      };
    const m = new RegExp(`^/apis/${GROUP_VERSION}/namespaces/([^/]+)/pods(?:/([^/]+))?$`).exec(p);
    if (!m) return null;
    const [, ns, name] = m;
    const query = new URLSearchParams();
    const selector = url.searchParams.get("labelSelector");
    if (selector) query.set("labelSelector", selector);
    const pods = (await api(cp.server, cp.adminToken, "GET", `/api/v1/namespaces/${ns}/pods?${query}`)) as { items: Pod[] };
    const running = pid === null ? [] : pods.items.filter((x) => x.status?.phase === "Running");
    const items = running.map((x) => podMetrics(x, cores() / running.length));
    if (!name) return { kind: "PodMetricsList", apiVersion: GROUP_VERSION, metadata: {}, items };
    return items.find((x) => x.metadata.name === name) ?? null;
  };

  const certs = path.join(cp.dir, "certs");
  const server = createServer(
    { cert: readFileSync(path.join(certs, "apiserver.crt")), key: readFileSync(path.join(certs, "apiserver.key")) },
    (req, res) => {
      answer(new URL(req.url ?? "/", "https://localhost")).then(
        (body) => {
          res.writeHead(body === null ? 404 : 200, { "content-type": "application/json" });
          res.end(JSON.stringify(body ?? { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 }));
        },
        (err: Error) => {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message: err.message, code: 500 }));
        },
      );
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  await api(cp.server, cp.adminToken, "POST", "/api/v1/namespaces/kube-system/services", {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "metrics-server" },
    spec: { type: "ExternalName", externalName: "localhost" },
  });
  await api(cp.server, cp.adminToken, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", {
    apiVersion: "apiregistration.k8s.io/v1",
    kind: "APIService",
    metadata: { name: "v1beta1.metrics.k8s.io" },
    spec: {
      group: "metrics.k8s.io",
      version: "v1beta1",
      service: { namespace: "kube-system", name: "metrics-server", port },
      insecureSkipTLSVerify: true,
      groupPriorityMinimum: 100,
      versionPriority: 100,
    },
  });
  // Available once the aggregator's check of the discovery path succeeds.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await api(cp.server, cp.adminToken, "GET", `/apis/${GROUP_VERSION}`).then(
      () => true,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`the metrics API did not become available through kube-apiserver (logs in ${cp.dir})`);
    await new Promise((r) => setTimeout(r, 500));
  }

  return {
    measure(next) {
      pid = next;
      samples = [];
    },
    stop: async () => {
      clearInterval(sampler);
      // The API server keeps its connections alive: close them, or close() waits for their idle timeout.
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    },
  };
}
