// The published vCPUs of what a cloud kind runs on (kinds/aws-asg.ts, kinds/aws-lambda.ts): each kind's
// vcpuPerReplica (kinds/) reads its spec with these.

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
