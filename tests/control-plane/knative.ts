// Knative Serving on the tests' control plane, installed as a cluster's owner would: its CRDs (with networking's and
// caching's), the knative-serving namespace and its config maps, all from the modules tests/control-plane/build.mjs
// built the binaries from; then its real controller and autoscaler (the KPA) run as processes against the API server
// with the admin kubeconfig. No webhook (the Services the tests make carry every field), no activator and no ingress
// layer: a Route's KIngress is never reconciled here, so Routes (and so Services) never become Ready; Configurations,
// Revisions, their Deployments and PodAutoscalers do (docs/kubernetes.md).
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseAllDocuments } from "yaml";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { waitForKnativeBuild } from "./build.mjs";
import { api, type ControlPlane, stopProcesses } from "./control-plane";
import { freePort } from "../ports";

export const KNATIVE_NAMESPACE = "knative-serving";

interface KnativeBuild {
  version: string;
  bin: (name: string) => string;
  config: (group: string) => string;
}

export interface Knative {
  version: string;
  /** The processes started (controller, autoscaler); their logs are knative-<name>.log in the control plane's folder. */
  processes: string[];
  stop: () => Promise<void>;
}

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  data?: Record<string, string>;
}

const docsOf = (file: string): Doc[] =>
  parseAllDocuments(readFileSync(file, "utf8"))
    .map((d) => d.toJS() as Doc | null)
    .filter((d): d is Doc => d !== null);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What the tests change in Knative's config maps: no tag of any registry resolved to a digest (there is no registry
 * to ask; a real cluster resolves them), and a queue-proxy image name (kwok's pods run no container, so any name).
 */
const CONFIG_OVERRIDES: Record<string, Record<string, string>> = {
  "config-deployment": {
    "queue-sidecar-image": "gcr.io/knative-releases/knative.dev/serving/cmd/queue:v1.15.2",
    "registries-skipping-tag-resolving": "index.docker.io,docker.io,ghcr.io,gcr.io,kind.local,ko.local,dev.local",
  },
};

async function create(cp: ControlPlane, doc: Doc): Promise<void> {
  const ns = doc.metadata.namespace;
  const where: Record<string, string> = {
    Namespace: "/api/v1/namespaces",
    CustomResourceDefinition: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    ConfigMap: `/api/v1/namespaces/${ns}/configmaps`,
    Service: `/api/v1/namespaces/${ns}/services`,
  };
  const p = where[doc.kind];
  if (!p) throw new Error(`installing Knative: no place for ${doc.kind} ${doc.metadata.name}`);
  await api(cp.server, cp.adminToken, "POST", p, doc);
}

/** Installs Knative Serving's CRDs and config maps (the cluster owner's part), then starts its controller and autoscaler. */
export async function startKnative(cp: ControlPlane, opts: { log?: (m: string) => void } = {}): Promise<Knative> {
  const build = (await waitForKnativeBuild({ log: opts.log ?? (() => {}) })) as KnativeBuild;
  const files = (group: string) =>
    readdirSync(build.config(group))
      .sort()
      .map((f) => path.join(build.config(group), f));
  for (const f of files("namespace")) for (const d of docsOf(f)) await create(cp, d);
  const crds = files("crds").flatMap(docsOf);
  for (const d of crds) await create(cp, d);
  const deadline = Date.now() + 60_000;
  for (const d of crds) {
    for (;;) {
      const crd = (await api(
        cp.server,
        cp.adminToken,
        "GET",
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${d.metadata.name}`,
      )) as {
        status?: { conditions?: { type: string; status: string }[] };
      };
      if (crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) break;
      if (Date.now() > deadline) throw new Error(`CRD ${d.metadata.name} not Established within 60 s`);
      await sleep(200);
    }
  }
  for (const d of files("configmaps").flatMap(docsOf))
    await create(cp, { ...d, data: { ...d.data, ...CONFIG_OVERRIDES[d.metadata.name] } });
  // The activator's Service, not its Deployment: a ServerlessService reads the activator's Endpoints (empty here).
  for (const d of files("services").flatMap(docsOf)) if (d.kind === "Service") await create(cp, d);

  const kubeconfig = path.join(cp.dir, "admin.kubeconfig");
  const children: ChildProcess[] = [];
  const stop = () => stopProcesses(children);
  const start = async (name: string) => {
    const out = createWriteStream(path.join(cp.dir, `knative-${name}.log`));
    const env = {
      PATH: process.env.PATH,
      SYSTEM_NAMESPACE: KNATIVE_NAMESPACE,
      POD_NAME: name,
      // The autoscaler names itself in an Endpoints object, which refuses loopback addresses: the machine's own.
      POD_IP: hostAddress(),
      CONFIG_LOGGING_NAME: "config-logging",
      CONFIG_OBSERVABILITY_NAME: "config-observability",
      METRICS_DOMAIN: "knative.dev/internal/serving",
      // Their metrics and profiling servers on free loopback ports (9090 and 8008 by default, on every address).
      METRICS_PROMETHEUS_HOST: "127.0.0.1",
      METRICS_PROMETHEUS_PORT: String(await freePort()),
      PROFILING_PORT: String(await freePort()),
    };
    const child = spawn("nice", ["-n", "5", build.bin(name), `--kubeconfig=${kubeconfig}`], { env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    children.push(child);
    exited.set(name, null);
    child.once("exit", (code, signal) => exited.set(name, `${code ?? signal}`));
  };
  const exited = new Map<string, string | null>();
  try {
    await start("controller");
    await start("autoscaler");
    // Both take their leases (leader election) before they reconcile: wait for the controller's and the KPA's.
    await waitForLeases(cp, ["controller", "autoscaler"], 120_000, () => {
      const gone = [...exited].filter(([, how]) => how !== null);
      if (gone.length) throw new Error(`Knative's ${gone.map(([n, how]) => `${n} exited (${how})`).join(", ")}`);
    });
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message} (logs: ${cp.dir}/knative-*.log)`);
  }
  return { version: build.version, processes: ["controller", "autoscaler"], stop };
}

/** This machine's first IPv4 address that is not loopback (a documentation address when it has none). */
function hostAddress(): string {
  for (const list of Object.values(os.networkInterfaces()))
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  return "192.0.2.1";
}

/**
 * Waits until each component holds its leases in knative-serving (named after the component, e.g. one per reconciler of the controller:
 * its reconcilers start once it does); `alive` throws when a process has exited.
 */
async function waitForLeases(cp: ControlPlane, components: string[], timeoutMs: number, alive: () => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    alive();
    const leases = (await api(cp.server, cp.adminToken, "GET", `/apis/coordination.k8s.io/v1/namespaces/${KNATIVE_NAMESPACE}/leases`)) as {
      items: { metadata: { name: string }; spec?: { holderIdentity?: string } }[];
    };
    const held = (c: string) => leases.items.some((l) => l.metadata.name.startsWith(c) && l.spec?.holderIdentity);
    if (components.every(held)) return;
    if (Date.now() > deadline)
      throw new Error(`Knative's ${components.filter((c) => !held(c)).join(", ")} took no lease within ${timeoutMs / 1000} s`);
    await sleep(500);
  }
}
