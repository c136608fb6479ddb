import { gcpCloudRunSpec } from "@opsbench/core";
import { type FieldType, type SpecValues, specFromValues } from "@/features/targets/target-form/spec-values";
import { PLATFORM_FIELDS, platformLines } from "./platform-spec";

export const GCP_CLOUD_RUN_FIELDS = {
  ...PLATFORM_FIELDS,
  projectId: "text",
  image: "text",
  port: "int",
  concurrency: "int",
  minInstances: "int",
  maxInstances: "int",
  cpu: "text",
  memoryMb: "int",
  cpuThrottling: "bool",
} satisfies Record<string, FieldType>;

export const buildGcpCloudRunSpec = (v: SpecValues) => specFromValues(v, GCP_CLOUD_RUN_FIELDS);

export function describeGcpCloudRun(spec: unknown): string[] | null {
  const r = gcpCloudRunSpec.safeParse(spec);
  if (!r.success) return null;
  const s = r.data;
  return [
    `service opsbench-<run> in ${s.projectId ?? "the credential's project"}: ${s.image} on port ${s.port}`,
    `${s.minInstances}..${s.maxInstances} instances, ${s.concurrency} requests at once per instance`,
    `${s.cpu} vCPU, ${s.memoryMb} MiB, CPU ${s.cpuThrottling ? "only while serving a request (request-based billing)" : "always allocated"}`,
    ...platformLines(s, "the service's run.app URL"),
  ];
}
