import { endpointSpec } from "@opsbench/core";
import { type FieldType, fieldsUnder, type SpecValues, specFromValues } from "../spec-values";

export const ENDPOINT_FIELDS = {
  url: "text",
  "linked.credential": "text",
  "linked.namespace": "text",
  "linked.deployment": "text",
} satisfies Record<string, FieldType>;

export const buildEndpointSpec = (v: SpecValues) =>
  specFromValues(v, v["@linked"] === "true" ? ENDPOINT_FIELDS : fieldsUnder(ENDPOINT_FIELDS, "url"));

export function describeEndpoint(spec: unknown): string[] | null {
  const r = endpointSpec.safeParse(spec);
  if (!r.success) return null;
  const { url, linked } = r.data;
  return [
    `nothing deployed or torn down: load to ${url} (where the host policy allows)`,
    linked
      ? `observes ${linked.deployment ? `Deployment ${linked.deployment}` : "the Deployments"} in namespace ${linked.namespace ?? "(none given)"} with credential ${linked.credential}`
      : "no platform series (not linked)",
  ];
}
