import { type CredentialKind, endpointSpec } from "@opsbench/core";
import { type FieldType, fieldsUnder, type SpecValues, specFromValues, valuesFromSpec } from "@/features/targets/target-form/spec-values";

export const ENDPOINT_FIELDS = {
  url: "text",
  "linked.credential": "text",
  "linked.namespace": "text",
  "linked.deployment": "text",
  "linked.autoScalingGroupName": "text",
  "linked.loadBalancer": "text",
  "linked.cloudRunService": "text",
  "linked.projectId": "text",
  "linked.region": "text",
} satisfies Record<string, FieldType>;

export type EndpointLinkKind = "none" | "kubernetes" | "aws" | "gcp";
export const ENDPOINT_LINK_CREDENTIAL: Record<Exclude<EndpointLinkKind, "none">, CredentialKind> = {
  kubernetes: "kubernetes",
  aws: "aws",
  gcp: "gcp",
};

/** The boxes each link sends (those of another link, typed before switching, are left out). */
const LINK_FIELDS: Record<EndpointLinkKind, string[]> = {
  none: [],
  kubernetes: ["linked.credential", "linked.namespace", "linked.deployment"],
  aws: ["linked.credential", "linked.autoScalingGroupName", "linked.loadBalancer", "linked.region"],
  gcp: ["linked.credential", "linked.cloudRunService", "linked.projectId", "linked.region"],
};

export const buildEndpointSpec = (v: SpecValues) =>
  specFromValues(v, fieldsUnder(ENDPOINT_FIELDS, "url", ...LINK_FIELDS[(v["@link"] || "none") as EndpointLinkKind]));

/** A stored spec's boxes, with the link it has. */
export function endpointValues(spec: unknown): SpecValues {
  const values = valuesFromSpec(spec, ENDPOINT_FIELDS);
  const link = (Object.keys(LINK_FIELDS) as EndpointLinkKind[]).find(
    (k) => k !== "none" && LINK_FIELDS[k].some((p) => p !== "linked.credential" && p !== "linked.region" && values[p]),
  );
  return { ...values, "@link": link ?? "none" };
}

export function describeEndpoint(spec: unknown): string[] | null {
  const r = endpointSpec.safeParse(spec);
  if (!r.success) return null;
  const { url, linked: l } = r.data;
  const what = !l
    ? null
    : l.namespace
      ? `Deployment ${l.deployment} in namespace ${l.namespace}`
      : l.autoScalingGroupName
        ? `Auto Scaling group ${l.autoScalingGroupName} in ${l.region} (CloudWatch)`
        : `Cloud Run service ${l.cloudRunService} in ${l.region} (Cloud Monitoring)`;
  return [
    `nothing deployed or torn down: load to ${url} (where the host policy allows)`,
    what ? `observes ${what} with credential ${l?.credential}, never changing it` : "no platform series (not linked)",
  ];
}
