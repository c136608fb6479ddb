// The vCPUs one replica (instance, pod, function instance) of a target has, for throughput per vCPU: what its
// spec gives it, or for an EC2 instance type its published vCPU count. Null when the spec does not say (a pod
// without a CPU request or limit, an endpoint, an instance type not in the table).
import { kubeCpuCores } from "./kubernetes-spec";

/** vCPUs of a size in the general-purpose and compute families (t3, t3a, t4g, m5-m8, c5-c8, r5-r8...). */
const SIZE_VCPUS: Record<string, number> = { nano: 2, micro: 2, small: 2, medium: 2, large: 2, xlarge: 4 };
/** Older burstable sizes with a single vCPU. */
const ONE_VCPU = new Set(["t2.nano", "t2.micro", "t2.small", "t1.micro"]);

/** An EC2 instance type's vCPUs (t3.medium 2, c5.2xlarge 8, m6i.metal: unknown), or null. */
export function ec2Vcpus(instanceType: string): number | null {
  if (ONE_VCPU.has(instanceType)) return 1;
  const size = instanceType.split(".")[1] ?? "";
  if (SIZE_VCPUS[size] !== undefined) return SIZE_VCPUS[size]!;
  const m = /^(\d+)xlarge$/.exec(size);
  return m ? Number(m[1]) * 4 : null;
}

/** Lambda gives a function one vCPU per 1,769 MB of memory. */
export const LAMBDA_MB_PER_VCPU = 1769;

const num = (v: unknown) => (typeof v === "number" && v > 0 ? v : null);
const cores = (v: unknown) => (typeof v === "string" ? kubeCpuCores(v) : num(v));

/** vCPUs per replica of a target (kind + spec as a run copied them), or null when the spec does not say. */
export function vcpuPerReplica(kind: string, spec: unknown): number | null {
  const s = (spec ?? {}) as Record<string, unknown>;
  const r = (s.resources ?? {}) as Record<string, unknown>;
  switch (kind) {
    case "local-service":
      // What a replica may use (its cgroup limit), else what it asks for (the autoscaler's reference), else 1.
      return cores(r.cpuLimit) ?? cores(r.cpuRequest) ?? 1;
    case "local-function":
      return cores(r.cpuLimit) ?? 1;
    case "kubernetes":
      return cores(r.cpuLimit) ?? cores(r.cpuRequest);
    case "gcp-cloud-run":
      return cores(s.cpu ?? "1");
    case "aws-asg":
      return ec2Vcpus(typeof s.instanceType === "string" ? s.instanceType : "t3.micro");
    case "aws-lambda":
      return (num(s.memoryMb) ?? 128) / LAMBDA_MB_PER_VCPU;
    default:
      return null;
  }
}
