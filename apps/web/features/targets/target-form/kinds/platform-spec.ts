// What the aws-asg, aws-lambda and gcp-cloud-run specs share: the credential and region, the URL the load
// goes to instead of the platform's own address, and how long to keep fetching the platform's metrics.
import type { PlatformMetricsSettings } from "@opsbench/core";
import type { FieldType } from "@/features/targets/target-form/spec-values";

export const PLATFORM_FIELDS = {
  credential: "text",
  region: "text",
  endpointUrl: "text",
  "metrics.settleSeconds": "int",
  "metrics.waitSeconds": "int",
  "metrics.pollSeconds": "int",
} satisfies Record<string, FieldType>;

/** The defaults the providers use (cloud-target-specs.ts comments). */
export const METRICS_DEFAULTS = { settleSeconds: 60, waitSeconds: 300, pollSeconds: 20 };

/** The lines every cloud kind's preview ends with. */
export function platformLines(
  s: { credential: string; region: string; endpointUrl?: string; metrics?: PlatformMetricsSettings },
  ownAddress: string,
): string[] {
  const m = { ...METRICS_DEFAULTS, ...s.metrics };
  return [
    `in ${s.region} with credential ${s.credential}, every resource tagged with the run`,
    `load to ${s.endpointUrl ?? ownAddress}`,
    `platform metrics: a period counts ${m.settleSeconds} s after it ends; wait up to ${m.waitSeconds} s, asking every ${m.pollSeconds} s`,
  ];
}
