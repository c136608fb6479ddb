// What a local target will run with (the kind's defaults filled in), in words; null while the spec is not valid
// (each kind's describe in kinds/kind-forms.ts).
import { functionSettings, localFunctionSpec, localServiceSpec, serviceSettings } from "@opsbench/core";

const secs = (ms: number) => (ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

export function describeLocalService(spec: unknown): string[] | null {
  const r = localServiceSpec.safeParse(spec);
  if (!r.success) return null;
  const s = serviceSettings(r.data);
  return [
    `${s.minReplicas === s.maxReplicas ? `${s.minReplicas} replica(s)` : `${s.minReplicas}..${s.maxReplicas} replicas`}`,
    s.autoscaler
      ? `autoscaler at ${s.autoscaler.targetCpuPercent}% of ${s.resources.cpuRequest} core(s), sync ${secs(s.autoscaler.syncPeriodMs)}, tolerance ${s.autoscaler.tolerance}, scale-down window ${secs(s.autoscaler.scaleDownStabilizationMs)}`
      : "no autoscaler",
    `limits: ${s.resources.cpuLimit ?? "no"} CPU, ${s.resources.memoryLimitMb !== null ? `${s.resources.memoryLimitMb} MiB` : "no memory limit"}`,
    `${s.balancing} balancing, ${s.placement}, ${s.network}`,
  ];
}

export function describeLocalFunction(spec: unknown): string[] | null {
  const r = localFunctionSpec.safeParse(spec);
  if (!r.success) return null;
  const f = functionSettings(r.data);
  return [
    `${f.platform}: concurrency ${f.concurrency} per instance, ${f.minInstances}..${f.maxInstances} instances`,
    `idle timeout ${secs(f.idleTimeoutMs)}, queue timeout ${secs(f.queueTimeoutMs)} (max ${f.maxQueue} waiting)`,
    `billed ${f.billing.mode}, rounded up to ${f.billing.granularityMs} ms, at least ${f.billing.minimumMs} ms`,
  ];
}
