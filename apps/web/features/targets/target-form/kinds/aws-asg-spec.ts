import { awsAsgSpec } from "@opsbench/core";
import { type FieldType, type SpecValues, specFromValues } from "@/features/targets/target-form/spec-values";
import { PLATFORM_FIELDS, platformLines } from "./platform-spec";

export const AWS_ASG_FIELDS = {
  ...PLATFORM_FIELDS,
  imageId: "text",
  instanceType: "text",
  userData: "text",
  port: "int",
  healthCheckPath: "text",
  minSize: "int",
  maxSize: "int",
  targetCpuPercent: "number",
  warmupSeconds: "int",
  subnetIds: "list",
} satisfies Record<string, FieldType>;

export const buildAwsAsgSpec = (v: SpecValues) => specFromValues(v, AWS_ASG_FIELDS);

export function describeAwsAsg(spec: unknown): string[] | null {
  const r = awsAsgSpec.safeParse(spec);
  if (!r.success) return null;
  const s = r.data;
  return [
    `launch template: ${s.imageId ?? "the region's newest Amazon Linux 2023"} on ${s.instanceType}${s.container ? `, running ${s.container.image}` : s.userData ? ", with user data" : ""}`,
    `ALB and target group to port ${s.port} (health check ${s.healthCheckPath})`,
    `Auto Scaling group of ${s.minSize}..${s.maxSize} instances, target tracking at ${s.targetCpuPercent}% CPU, warm-up ${s.warmupSeconds} s`,
    s.subnetIds ? `subnets ${s.subnetIds.join(", ")}` : "the default VPC's subnets",
    ...platformLines(s, "the ALB's address"),
  ];
}
