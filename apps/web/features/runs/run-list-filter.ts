// The runs list's filters from the page's URL (?commit=, ?branch=, ?label=key=value): checked with the API's own
// query schema, so the page and GET /api/v1/runs take and refuse the same filters.
import { runsQuery } from "@opsbench/api";

export interface RunListFilter {
  commit?: string;
  branch?: string;
  label?: string;
}

type Query = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined): string | undefined => {
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  return s ? s : undefined;
};

/** The filters given (an empty box is none), checked; `error` names what was refused (the list then shows nothing). */
export function runListFilterFromQuery(query: Query): { filter: RunListFilter; given: boolean; error: string | null } {
  const filter: RunListFilter = {};
  for (const key of ["commit", "branch", "label"] as const) {
    const v = first(query[key]);
    if (v !== undefined) filter[key] = v;
  }
  const given = Object.keys(filter).length > 0;
  const parsed = runsQuery.safeParse(filter);
  if (parsed.success) return { filter, given, error: null };
  const error = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
  return { filter, given, error };
}
