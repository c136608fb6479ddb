// A real Kubernetes control plane for the tests, on free loopback ports in a temp folder: etcd, kube-apiserver
// (RBAC, token users), kube-controller-manager (Deployments, ReplicaSets, HPA, namespace deletion),
// kube-scheduler, and kwok playing the kubelets of simulated nodes (pods become Running and Ready without
// containers). Built by tests/control-plane/build.mjs (setup starts the build in the background; this waits).
import { type ChildProcess, spawn } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { kubeconfigYaml } from "../fake-kube-api";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { waitForControlPlaneBuild } from "./build.mjs";

export interface ControlPlane {
  /** https://127.0.0.1:<port> */
  server: string;
  /** A kubeconfig of an admin (group system:masters), and its bearer token (for the fixtures' own calls). */
  adminKubeconfig: string;
  adminToken: string;
  /** A kubeconfig of a user with no role at all (every SelfSubjectAccessReview says no). */
  nobodyKubeconfig: string;
  /** Where each component's log is. */
  dir: string;
  stop: () => Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A kubeconfig for a token user against a server whose certificate is self-signed. */
const insecureKubeconfig = (server: string, token: string) =>
  kubeconfigYaml(server, token).replace(`    server: ${server}`, `    server: ${server}\n    insecure-skip-tls-verify: true`);

export async function startControlPlane(
  opts: {
    nodes?: number;
    log?: (m: string) => void;
    /** A port on 127.0.0.1 that every pod's port-forward reaches (kwok's pods run nothing: the stand-in answers). */
    portForwardTo?: number;
  } = {},
): Promise<ControlPlane> {
  const log = opts.log ?? (() => {});
  const build = (await waitForControlPlaneBuild({ log })) as { bin: (n: string) => string; stages: string };
  const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-kube-"));
  const children: ChildProcess[] = [];
  const start = (name: string, args: string[]) => {
    const out = createWriteStream(path.join(dir, `${name}.log`));
    const child = spawn("nice", ["-n", "5", build.bin(name), ...args], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    children.push(child);
    return child;
  };
  const stop = async () => {
    await stopProcesses(children);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [etcdPort, peerPort, apiPort, cmPort, schedPort, kwokPort] = await Promise.all([1, 2, 3, 4, 5, 6].map(() => freePort()));
    const etcd = `http://127.0.0.1:${etcdPort}`;
    start("etcd", [
      `--data-dir=${path.join(dir, "etcd")}`,
      `--listen-client-urls=${etcd}`,
      `--advertise-client-urls=${etcd}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-cluster=default=http://127.0.0.1:${peerPort}`,
      "--log-level=warn",
    ]);
    const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    writeFileSync(path.join(dir, "sa.pub"), publicKey.export({ type: "spki", format: "pem" }));
    writeFileSync(path.join(dir, "sa.key"), privateKey.export({ type: "pkcs8", format: "pem" }));
    const adminToken = randomBytes(16).toString("hex");
    const nobodyToken = randomBytes(16).toString("hex");
    writeFileSync(path.join(dir, "tokens.csv"), `${adminToken},admin,1,system:masters\n${nobodyToken},nobody,2\n`);
    const server = `https://127.0.0.1:${apiPort}`;
    start("kube-apiserver", [
      `--etcd-servers=${etcd}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      `--secure-port=${apiPort}`,
      `--cert-dir=${path.join(dir, "certs")}`,
      "--authorization-mode=RBAC",
      `--token-auth-file=${path.join(dir, "tokens.csv")}`,
      "--service-account-issuer=https://kubernetes.default.svc",
      `--service-account-key-file=${path.join(dir, "sa.pub")}`,
      `--service-account-signing-key-file=${path.join(dir, "sa.key")}`,
      "--service-cluster-ip-range=10.96.0.0/16",
      // kwok plays each node's kubelet on 127.0.0.1 (port-forward goes through it).
      "--kubelet-preferred-address-types=InternalIP",
      // Fewer moving parts on a shared 2-core machine.
      "--enable-priority-and-fairness=false",
      "--watch-cache=true",
    ]);
    const admin = insecureKubeconfig(server, adminToken);
    writeFileSync(path.join(dir, "admin.kubeconfig"), admin);
    const kubeconfigFile = path.join(dir, "admin.kubeconfig");
    await waitForApi(server, adminToken, 120_000, dir);
    start("kube-controller-manager", [
      `--kubeconfig=${kubeconfigFile}`,
      "--bind-address=127.0.0.1",
      `--secure-port=${cmPort}`,
      "--leader-elect=false",
      "--controllers=*",
      `--service-account-private-key-file=${path.join(dir, "sa.key")}`,
      // The HPA decides every 5 s and scales down 30 s after the load has gone (a test's run is short).
      "--horizontal-pod-autoscaler-sync-period=5s",
      "--horizontal-pod-autoscaler-downscale-stabilization=30s",
    ]);
    start("kube-scheduler", [
      `--kubeconfig=${kubeconfigFile}`,
      "--bind-address=127.0.0.1",
      `--secure-port=${schedPort}`,
      "--leader-elect=false",
    ]);
    // kwok's Stages (nodes Ready, pods Running and Ready at once), all documents in one config file.
    const stages = readdirSync(build.stages)
      .map((f) => readFileSync(path.join(build.stages, f), "utf8"))
      .join("\n---\n");
    const portForward = opts.portForwardTo
      ? `\n---\n${JSON.stringify({
          apiVersion: "kwok.x-k8s.io/v1alpha1",
          kind: "ClusterPortForward",
          metadata: { name: "stand-in" },
          spec: { forwards: [{ target: { address: "127.0.0.1", port: opts.portForwardTo } }] },
        })}`
      : "";
    writeFileSync(path.join(dir, "kwok.yaml"), stages + portForward);
    const certs = path.join(dir, "certs");
    start("kwok", [
      `--kubeconfig=${kubeconfigFile}`,
      `--config=${path.join(dir, "kwok.yaml")}`,
      "--manage-all-nodes=true",
      `--server-address=127.0.0.1:${kwokPort}`,
      // The nodes' kubelet address: kube-apiserver reaches kwok there over TLS (with kube-apiserver's own certificate).
      "--node-ip=127.0.0.1",
      `--node-port=${kwokPort}`,
      `--tls-cert-file=${path.join(certs, "apiserver.crt")}`,
      `--tls-private-key-file=${path.join(certs, "apiserver.key")}`,
    ]);
    for (let i = 0; i < (opts.nodes ?? 3); i++) {
      await api(server, adminToken, "POST", "/api/v1/nodes", {
        apiVersion: "v1",
        kind: "Node",
        metadata: { name: `kwok-node-${i}`, labels: { "kubernetes.io/hostname": `kwok-node-${i}`, type: "kwok" } },
        status: { allocatable: { cpu: "8", memory: "32Gi", pods: "110" }, capacity: { cpu: "8", memory: "32Gi", pods: "110" } },
      });
    }
    await waitUntil(
      async () => {
        const nodes = (await api(server, adminToken, "GET", "/api/v1/nodes")) as {
          items: { status?: { conditions?: { type: string; status: string }[] } }[];
        };
        return (
          nodes.items.filter((n) => n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")).length ===
          (opts.nodes ?? 3)
        );
      },
      120_000,
      "the kwok nodes to be Ready",
      dir,
    );
    return { server, adminKubeconfig: admin, adminToken, nobodyKubeconfig: insecureKubeconfig(server, nobodyToken), dir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Ends a throwaway cluster's processes, last started first: SIGTERM, then SIGKILL to those still running after 3 s
 * (kube-apiserver's graceful shutdown alone took 21 s, in every Kubernetes file's afterAll; nothing here is kept).
 */
export async function stopProcesses(children: ChildProcess[]): Promise<void> {
  const running = [...children].reverse().filter((c) => c.exitCode === null && !c.signalCode);
  const exited = running.map((c) => new Promise((r) => c.once("exit", r)));
  for (const c of running) c.kill("SIGTERM");
  const killer = setTimeout(() => {
    for (const c of running) if (c.exitCode === null && !c.signalCode) c.kill("SIGKILL");
  }, 3_000);
  await Promise.all(exited);
  clearTimeout(killer);
}

/** A raw call with the admin token (the fixture's own set-up; the provider under test uses its own client). */
export async function api(server: string, token: string, method: string, p: string, body?: unknown): Promise<unknown> {
  const { request } = await import("node:https");
  return new Promise((resolve, reject) => {
    const req = request(
      `${server}${p}`,
      {
        method,
        rejectUnauthorized: false,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json" },
      },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () =>
          (res.statusCode ?? 500) < 300
            ? resolve(parseOrText(text))
            : reject(new Error(`${method} ${p}: ${res.statusCode} ${text.slice(0, 300)}`)),
        );
      },
    );
    req.on("error", reject);
    if (body !== undefined) req.write(JSON.stringify(body));
    req.end();
  });
}

function parseOrText(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

async function waitUntil(ok: () => Promise<boolean>, timeoutMs: number, what: string, dir: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await ok().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (logs in ${dir})`);
    await sleep(500);
  }
}

function waitForApi(server: string, token: string, timeoutMs: number, dir: string): Promise<void> {
  return waitUntil(
    async () => (await api(server, token, "GET", "/readyz").catch(() => "no")) !== "no",
    timeoutMs,
    "kube-apiserver /readyz",
    dir,
  );
}
