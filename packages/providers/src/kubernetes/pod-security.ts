// The Pod Security Standards' baseline (kubernetes.io/docs/concepts/security/pod-security-standards), checked on the
// documents a run applies (manifests, a rendered chart) before one object is made, and enforced by the cluster itself
// through the run namespace's labels (namespaceObject). A pod that is privileged, shares the node's network, PIDs or
// IPC, mounts a node's folder (hostPath) or binds a node's port is root on the node: an editor deploying with an
// owner's kubeconfig would own the owner's nodes. Only a credential whose owner allows it (allow.privilegedPods)
// lifts the check, and its runs' namespaces are labelled privileged instead.
import type { KubernetesCredentialAllow } from "@opsbench/core";

/** The level a run's namespace enforces (its pod-security.kubernetes.io/enforce label). */
export type PodSecurityLevel = "baseline" | "privileged";
export const podSecurityLevel = (allow: KubernetesCredentialAllow | undefined): PodSecurityLevel =>
  allow?.privilegedPods ? "privileged" : "baseline";

/** The labels that make the API server's own admission hold a namespace's pods to `level`. */
export const podSecurityLabels = (level: PodSecurityLevel) => ({
  "pod-security.kubernetes.io/enforce": level,
  "pod-security.kubernetes.io/enforce-version": "latest",
});

/** Capabilities a baseline container may add (the standard's list). */
const BASELINE_CAPABILITIES = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);
/** Sysctls a baseline pod may set (namespaced ones that touch nothing outside the pod). */
const SAFE_SYSCTLS = new Set([
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.ip_unprivileged_port_start",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_local_reserved_ports",
  "net.ipv4.tcp_keepalive_time",
  "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
]);
const SELINUX_TYPES = new Set(["", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"]);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** Where a kind keeps its pod spec, as a path from the document. */
function podSpecPath(kind: string): string[] | null {
  if (kind === "Pod") return ["spec"];
  if (["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "ReplicationController"].includes(kind))
    return ["spec", "template", "spec"];
  if (kind === "CronJob") return ["spec", "jobTemplate", "spec", "template", "spec"];
  return null;
}

/** The first field of a pod spec the baseline refuses, as "path: what", or null. */
function podSpecProblem(spec: Obj, at: string, metadata: Obj | undefined, metadataAt: string): string | null {
  for (const field of ["hostNetwork", "hostPID", "hostIPC"])
    if (spec[field] === true) return `${at}.${field}: true (the node's own ${field === "hostNetwork" ? "network" : field.slice(4)})`;
  for (const [i, v] of list(spec.volumes).entries())
    if (v.hostPath !== undefined) return `${at}.volumes[${i}].hostPath (a folder of the node)`;
  const pod = isObj(spec.securityContext) ? spec.securityContext : {};
  const podProblem = securityContextProblem(pod, `${at}.securityContext`);
  if (podProblem) return podProblem;
  if (isObj(pod.windowsOptions) && pod.windowsOptions.hostProcess === true) return `${at}.securityContext.windowsOptions.hostProcess: true`;
  for (const [i, s] of list(pod.sysctls).entries())
    if (typeof s.name !== "string" || !SAFE_SYSCTLS.has(s.name))
      return `${at}.securityContext.sysctls[${i}]: ${String(s.name)} (not one of the safe sysctls)`;
  for (const [k, v] of Object.entries(isObj(metadata?.annotations) ? metadata.annotations : {}))
    if (k.startsWith("container.apparmor.security.beta.kubernetes.io/") && v === "unconfined")
      return `${metadataAt}.annotations["${k}"]: unconfined`;
  for (const group of ["initContainers", "containers", "ephemeralContainers"])
    for (const [i, c] of list(spec[group]).entries()) {
      const where = `${at}.${group}[${i}]`;
      for (const [j, p] of list(c.ports).entries())
        if (p.hostPort !== undefined && p.hostPort !== 0)
          return `${where}.ports[${j}].hostPort: ${String(p.hostPort)} (a port of the node)`;
      const sc = isObj(c.securityContext) ? c.securityContext : {};
      if (sc.privileged === true) return `${where}.securityContext.privileged: true`;
      if (isObj(sc.capabilities))
        for (const cap of Array.isArray(sc.capabilities.add) ? sc.capabilities.add : []) {
          const name = String(cap).toUpperCase().replace(/^CAP_/, "");
          if (!BASELINE_CAPABILITIES.has(name)) return `${where}.securityContext.capabilities.add: ${String(cap)}`;
        }
      if (sc.procMount !== undefined && sc.procMount !== "Default") return `${where}.securityContext.procMount: ${String(sc.procMount)}`;
      if (isObj(sc.windowsOptions) && sc.windowsOptions.hostProcess === true)
        return `${where}.securityContext.windowsOptions.hostProcess: true`;
      const problem = securityContextProblem(sc, `${where}.securityContext`);
      if (problem) return problem;
    }
  return null;
}

/** SELinux, seccomp and AppArmor settings the baseline refuses in a pod's or a container's securityContext. */
function securityContextProblem(sc: Obj, at: string): string | null {
  if (isObj(sc.seccompProfile) && sc.seccompProfile.type === "Unconfined") return `${at}.seccompProfile.type: Unconfined`;
  if (isObj(sc.appArmorProfile) && sc.appArmorProfile.type === "Unconfined") return `${at}.appArmorProfile.type: Unconfined`;
  if (isObj(sc.seLinuxOptions)) {
    const o = sc.seLinuxOptions;
    if (o.user !== undefined && o.user !== "") return `${at}.seLinuxOptions.user: ${String(o.user)}`;
    if (o.role !== undefined && o.role !== "") return `${at}.seLinuxOptions.role: ${String(o.role)}`;
    if (o.type !== undefined && !SELINUX_TYPES.has(String(o.type))) return `${at}.seLinuxOptions.type: ${String(o.type)}`;
  }
  return null;
}

/**
 * What of a document the baseline refuses ("spec.template.spec.containers[0].securityContext.privileged: true"), or
 * null. A Service's externalIPs are refused with it: they let a Service take over traffic to any address in the
 * cluster (CVE-2020-8554).
 */
export function baselineProblem(doc: { kind: string; [key: string]: unknown }): string | null {
  if (doc.kind === "Service" && isObj(doc.spec) && Array.isArray(doc.spec.externalIPs) && doc.spec.externalIPs.length > 0)
    return `spec.externalIPs: ${doc.spec.externalIPs.join(", ")} (a Service that takes traffic to other addresses)`;
  const path = podSpecPath(doc.kind);
  if (!path) return null;
  let at: unknown = doc;
  for (const p of path) at = isObj(at) ? at[p] : undefined;
  if (!isObj(at)) return null;
  // The pod template's metadata (its annotations) sits beside its spec.
  let template: unknown = doc;
  for (const p of path.slice(0, -1)) template = isObj(template) ? template[p] : undefined;
  const metadata = isObj(template) && isObj(template.metadata) ? template.metadata : undefined;
  return podSpecProblem(at, path.join("."), metadata, [...path.slice(0, -1), "metadata"].join("."));
}
