// A run's provenance (core runs/provenance.ts) in its columns: what is written, how it reads back, and the list's
// filters by it. Every caller scopes by workspace (runs-scope.ts); this file only maps.
import {
  commitFilterSchema,
  type LabelFilter,
  labelFilterSchema,
  provenanceLabelsSchema,
  readStoredJson,
  type RecordedProvenance,
  type RunProvenance,
  runProvenanceSchema,
} from "@opsbench/core";
import type { Prisma } from "../generated/prisma/client";
import { jsonInput } from "../json-column";

/** The columns of a run's provenance, checked again here (a caller's value never reaches the row unparsed); absent fields are null. */
export function provenanceColumns(provenance: RunProvenance = {}) {
  const p = runProvenanceSchema.parse(provenance);
  return {
    commit: p.commit ?? null,
    branch: p.branch ?? null,
    pullRequest: p.pullRequest ?? null,
    buildUrl: p.buildUrl ?? null,
    labels: jsonInput(provenanceLabelsSchema, p.labels ?? {}),
    series: p.series ?? null,
  };
}

type ProvenanceColumns = {
  commit: string | null;
  branch: string | null;
  pullRequest: number | null;
  buildUrl: string | null;
  labels: unknown;
  series: string | null;
};

/** A run row's provenance as the API and the pages show it; labels that do not parse read as none. */
export const recordedProvenance = (row: ProvenanceColumns): RecordedProvenance => ({
  commit: row.commit,
  branch: row.branch,
  pullRequest: row.pullRequest,
  buildUrl: row.buildUrl,
  labels: readStoredJson(provenanceLabelsSchema, row.labels) ?? {},
  series: row.series,
});

/**
 * A list's filters by provenance: a commit prefix of at least 7 hex digits (an abbreviated SHA finds the full one),
 * a branch (exactly), a label as `key=value`. A filter that does not parse is a ZodError (the API's 422).
 */
export interface ProvenanceFilter {
  commit?: string | undefined;
  branch?: string | undefined;
  label?: string | undefined;
}

export function provenanceWhere(filter: ProvenanceFilter): Prisma.RunWhereInput {
  const commit = filter.commit ? commitFilterSchema.parse(filter.commit) : undefined;
  const label: LabelFilter | undefined = filter.label ? labelFilterSchema.parse(filter.label) : undefined;
  return {
    // Stored lower-case (core's schema), compared lower-case; hex holds no LIKE wildcard.
    ...(commit ? { commit: { startsWith: commit } } : {}),
    ...(filter.branch ? { branch: filter.branch } : {}),
    ...(label ? { labels: { path: [label.key], equals: label.value } } : {}),
  };
}
